/** `file-system__mkdir`: create a directory (with parents by default, like `mkdir -p`). */
import { mkdir, stat } from 'node:fs/promises';
import type { JsonObject } from '../../../../shared/types/index.ts';
import { BaseToolError, systemErrorCode } from '../tool-error.ts';
import { resolveWorkspacePath } from '../workspace-path.ts';
import { fromSystemError, notADirectory } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';

export interface MkdirArgs {
  path: string;
  recursive?: boolean;
}

export async function makeDirectory(settings: FileSystemSettings, args: MkdirArgs): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path);
  const recursive = args.recursive !== false;
  const existing = await stat(target.absolute).catch(() => undefined);
  if (existing !== undefined) {
    if (!existing.isDirectory()) throw notADirectory(target.display);
    if (!recursive) {
      throw new BaseToolError('E_FS_EXISTS', `${target.display} already exists.`, { suggestion: 'Nothing to do; or pass recursive: true to accept an existing directory.' });
    }
    return { path: target.display, created: false };
  }
  try {
    await mkdir(target.absolute, { recursive });
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') {
      throw new BaseToolError('E_FS_NOT_FOUND', `The parent directory of ${target.display} does not exist.`, { suggestion: 'Pass recursive: true to create the parents too.' });
    }
    throw fromSystemError(error, target.display);
  }
  return { path: target.display, created: true };
}
