/** Directories a test file makes under the test run's TMPDIR, each removed after the test that made it. */
import { afterEach } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Call at a test file's top level; the returned function makes a fresh directory named `<prefix>…`. */
export function tempDirsRemovedAfterEach(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
