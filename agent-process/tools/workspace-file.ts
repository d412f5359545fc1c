/**
 * Writes a file the agent process itself puts into an instance workspace (a bounded tool result's
 * whole output). The agent runs outside the sandbox and the workspace is the sandboxed tools' to
 * shape: a symbolic link planted there (`.goondan/tool-output -> /home/...`) must not turn this
 * write into one outside it. So each directory is opened with O_NOFOLLOW through its parent's
 * descriptor (`/proc/self/fd/N/name`, Linux's openat), and the file is created anew with O_EXCL.
 */
import { closeSync, constants, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { systemErrorCode } from '../../bundles/base/tools/tool-error.ts';

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Writes `text` to `relative` (slash-separated, no `..`) under `workdir`; throws when a part of the path is a link or not a directory. */
export function writeWorkspaceFile(workdir: string, relative: string, text: string): void {
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  const name = parts.pop();
  if (name === undefined || parts.includes('..') || name === '..') throw new Error(`not a path inside the workspace: ${relative}`);
  mkdirSync(workdir, { recursive: true });
  let dir = openSync(workdir, DIRECTORY);
  try {
    for (const part of parts) {
      const at = `/proc/self/fd/${dir}/${part}`;
      try {
        mkdirSync(at);
      } catch (error) {
        if (systemErrorCode(error) !== 'EEXIST') throw error;
      }
      // ELOOP (or ENOTDIR) when what stands there is a link or a file.
      const next = openSync(at, DIRECTORY);
      closeSync(dir);
      dir = next;
    }
    const at = `/proc/self/fd/${dir}/${name}`;
    try {
      // An earlier attempt's file, or a link planted in its place: removed (unlink never follows it).
      unlinkSync(at);
    } catch (error) {
      if (systemErrorCode(error) !== 'ENOENT') throw error;
    }
    const fd = openSync(at, NEW_FILE, 0o644);
    try {
      const bytes = Buffer.from(text, 'utf8');
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
    } finally {
      closeSync(fd);
    }
  } finally {
    closeSync(dir);
  }
}
