/** `file-system__write`: create, overwrite or append a text file, creating parent directories. */
import { appendFile, mkdir, stat, writeFile as fsWriteFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { JsonObject } from '../../../../shared/types/index.ts';
import { resolveWorkspacePath } from '../workspace-path.ts';
import { fromSystemError, isDirectory, tooLarge } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';

export interface WriteArgs {
  path: string;
  content: string;
  append?: boolean;
}

export async function writeFile(settings: FileSystemSettings, args: WriteArgs): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path);
  const bytes = Buffer.byteLength(args.content, 'utf8');
  if (bytes > settings.maxWriteBytes) throw tooLarge(target.display, bytes, settings.maxWriteBytes, 'The content');
  const before = await stat(target.absolute).catch(() => undefined);
  if (before?.isDirectory()) throw isDirectory(target.display);
  try {
    // Parents are created inside the checked path only: the nearest existing ancestor was verified.
    await mkdir(dirname(target.absolute), { recursive: true });
    if (args.append === true) await appendFile(target.absolute, args.content, 'utf8');
    else await fsWriteFile(target.absolute, args.content, 'utf8');
  } catch (error) {
    throw fromSystemError(error, target.display);
  }
  const after = await stat(target.absolute);
  return { path: target.display, bytesWritten: bytes, size: after.size, created: before === undefined, appended: args.append === true };
}
