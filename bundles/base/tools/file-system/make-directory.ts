/**
 * `file-system__mkdir`: create a directory (with parents by default, like `mkdir -p`), each one
 * made through its verified parent's descriptor.
 */
import type { JsonObject } from '../../../../shared/types/index.ts';
import { BaseToolError } from '../tool-error.ts';
import { resolveWorkspacePath } from '../workspace-path.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { openDirectory } from './verified-open.ts';

export interface MkdirArgs {
  path: string;
  recursive?: boolean;
}

export async function makeDirectory(settings: FileSystemSettings, args: MkdirArgs): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path);
  const recursive = args.recursive !== false;
  const { handle, created } = await openDirectory(settings.policy, target, recursive ? 'all' : 'last');
  await handle.close();
  if (created === 0 && !recursive) {
    throw new BaseToolError('E_FS_EXISTS', `${target.display} already exists.`, { suggestion: 'Nothing to do; or pass recursive: true to accept an existing directory.' });
  }
  return { path: target.display, created: created > 0 };
}
