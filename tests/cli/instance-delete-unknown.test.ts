/** `goondan instance delete KEY` of a key the running daemon does not know: "no instance", exit 1, and no "deleted" line. */
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { REPO_ROOT, sharedDaemon } from '../e2e/daemon-harness.ts';
import { goondan } from './goondan-cli.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));

test('an unknown KEY is told once, as not found', async () => {
  const run = await goondan(['instance', 'delete', 'no-such-instance', '--state-root', daemon().stateRoot]);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim()).toBe("goondan instance delete: no instance 'no-such-instance' (see 'goondan instance list')");
});
