/**
 * Replaces a file at once: written beside it under a name of this process, then renamed over it,
 * so a reader — another process of this install, which may be writing the same file — sees the
 * old content or the new, never half of it. Not a durability point: nothing is fsynced.
 */
import { renameSync, writeFileSync } from 'node:fs';

export function replaceFile(path: string, data: string | Uint8Array): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, path);
}
