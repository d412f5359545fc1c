/** JSON Lines files the agents write (conversation, runtime events), read back by the daemon for the studio. */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Every parseable line of the file; with `tailBytes`, only the lines in its last `tailBytes`
 * (a line cut by the window's start dropped). A missing file is empty; a torn or
 * foreign line is skipped — the caller validates what it keeps.
 */
export function readJsonLines(path: string, tailBytes?: number): unknown[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    // One byte before the window tells whether it starts on a line boundary.
    const start = tailBytes !== undefined && size > tailBytes ? size - tailBytes - 1 : 0;
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    if (start > 0) lines.shift();
    const values: unknown[] = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        values.push(JSON.parse(line));
      } catch {
        // A line torn by a crash mid-write.
      }
    }
    return values;
  } finally {
    closeSync(fd);
  }
}
