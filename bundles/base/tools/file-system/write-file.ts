/**
 * `file-system__write`: create, overwrite or append a text file, creating parent directories.
 * The file is opened (or created) inside a verified directory descriptor and truncated only after
 * the checks, so neither a swapped link nor a hard link can make it write outside the workspace.
 */
import type { JsonObject } from '../../../../shared/types/index.ts';
import { resolveWorkspacePath } from '../workspace-path.ts';
import { fromSystemError, tooLarge } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { openFileForWriting } from './verified-open.ts';

export interface WriteArgs {
  path: string;
  content: string;
  append?: boolean;
}

export async function writeFile(settings: FileSystemSettings, args: WriteArgs): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path);
  const bytes = Buffer.byteLength(args.content, 'utf8');
  if (bytes > settings.maxWriteBytes) throw tooLarge(target.display, bytes, settings.maxWriteBytes, 'The content');
  const append = args.append === true;
  const { handle, created } = await openFileForWriting(settings.policy, target, append);
  try {
    if (!append) await handle.truncate(0);
    await handle.writeFile(args.content, 'utf8');
    return { path: target.display, bytesWritten: bytes, size: (await handle.stat()).size, created, appended: append };
  } catch (error) {
    throw fromSystemError(error, target.display);
  } finally {
    await handle.close();
  }
}
