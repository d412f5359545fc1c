/**
 * `goondan logs --trace` takes what `goondan logs` prints (the first 8 characters of a trace id),
 * or any longer prefix, or the whole id; fewer than 8 hex characters is a usage error.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancesDir } from '../../shared/state-paths.ts';
import { REPO_ROOT, sharedDaemon, waitFor } from '../e2e/daemon-harness.ts';
import { goondan } from './goondan-cli.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));

async function logs(stateRoot: string, ...args: string[]) {
  return goondan(['logs', ...args, '--state-root', stateRoot]);
}

describe('--trace with the short id goondan logs prints', () => {
  let traceId = '';
  beforeAll(async () => {
    await daemon().send({ input: 'whats your pid', instanceKey: 'trace-prefix' });
    const other = await daemon().send({ input: 'remember this', instanceKey: 'trace-prefix' });
    traceId = String(other.body.traceId);
    // The reply may overtake the agent's last runtime event on its way to disk.
    await waitFor('turn.completed of the trace in `goondan logs --trace <whole id>`', () => logs(daemon().stateRoot, '--trace', traceId), (run) => run.stdout.includes('turn.completed'));
  });

  test('the 8 characters shown in a line select that trace, and only it', async () => {
    const all = await logs(daemon().stateRoot, '--instance', 'trace-prefix');
    const short = traceId.slice(0, 8);
    expect(all.stdout).toContain(`trace=${short}`);
    const byShort = await logs(daemon().stateRoot, '--trace', short);
    expect(byShort.code).toBe(0);
    expect(byShort.stderr).toBe('');
    const lines = byShort.stdout.trimEnd().split('\n');
    expect(lines.some((line) => line.includes('turn.completed'))).toBe(true);
    for (const line of lines) expect(line).toContain(`trace=${short}`);
  });

  test('the whole id, a longer prefix and upper case select the same events', async () => {
    const byShort = await logs(daemon().stateRoot, '--trace', traceId.slice(0, 8), '--json');
    for (const id of [traceId, traceId.slice(0, 12), traceId.slice(0, 8).toUpperCase()]) {
      const run = await logs(daemon().stateRoot, '--trace', id, '--json');
      expect(run.stdout).toBe(byShort.stdout);
    }
    for (const line of byShort.stdout.trimEnd().split('\n')) expect(JSON.parse(line)).toMatchObject({ traceId });
  });

  test('fewer than 8 hex characters (or not hex) is a usage error, exit 2', async () => {
    for (const id of [traceId.slice(0, 7), 'not-a-trace', '']) {
      const run = await logs(daemon().stateRoot, '--trace', id);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`goondan logs: --trace needs a trace id or its first 8 or more hex characters (as 'goondan logs' prints it), got '${id}'`);
    }
  });
});

describe('a prefix that begins several trace ids', () => {
  let stateRoot = '';
  beforeAll(() => {
    stateRoot = mkdtempSync(join(tmpdir(), 'goondan-trace-prefix-'));
    const dir = join(instancesDir(stateRoot, 'ws'), 'alpha--k');
    mkdirSync(join(dir, 'messages'), { recursive: true });
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ agentName: 'alpha', instanceKey: 'k' }));
    const event = (traceId: string, timestamp: string) => JSON.stringify({ type: 'turn.completed', timestamp, agentName: 'alpha', instanceKey: 'k', traceId });
    writeFileSync(join(dir, 'messages', 'runtime-events.jsonl'), `${event(`abcdef01${'1'.repeat(24)}`, '2026-01-01T00:00:00.000Z')}\n${event(`abcdef01${'2'.repeat(24)}`, '2026-01-01T00:00:01.000Z')}\n`);
  });
  afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));

  test('prints both and says the prefix is ambiguous', async () => {
    const run = await logs(stateRoot, '--trace', 'abcdef01');
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(run.stderr).toContain("goondan logs: 'abcdef01' begins 2 trace ids; give more of the id to see one trace");
    expect((await logs(stateRoot, '--trace', `abcdef011`)).stdout.trimEnd().split('\n')).toHaveLength(1);
  });
});
