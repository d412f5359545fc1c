/**
 * Preloaded by `bun test` (bunfig.toml): every temporary file of a run — the tests' own state
 * roots and bundles, and whatever the daemons, agents and tools they start write to TMPDIR (which
 * they inherit) — goes under one directory, removed when the run ends. Before, each full run left
 * ~300 directories in /tmp. GOONDAN_KEEP_TEST_TMP=1 keeps it and says where it is.
 */
import { afterAll } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = mkdtempSync(join(tmpdir(), 'goondan-test-'));
// Open to every user with the sticky bit, as /tmp is: a test runs a tool as another user below it,
// and that user's Bun writes its own temporary files to TMPDIR.
chmodSync(root, 0o1777);
process.env.TMPDIR = root;
// A preload's afterAll runs once, after every test file (`bun test` emits no 'exit' to handlers).
afterAll(() => {
  if (process.env.GOONDAN_KEEP_TEST_TMP === '1') {
    process.stderr.write(`the run's temporary files are kept in ${root}\n`);
    return;
  }
  try {
    rmSync(root, { recursive: true, force: true });
  } catch {
    // A process the run left behind still writes there: the system's tmp cleaning takes the rest.
  }
});
