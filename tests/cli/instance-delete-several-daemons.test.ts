/**
 * `goondan instance delete KEY` with two daemons running under one state root and no
 * GOONDAN_API_URL: refused like ps and send ("several daemons are running"), exit 1, and neither
 * daemon's state of KEY is touched. With GOONDAN_API_URL it deletes through that daemon only.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { DAEMON_TEST_MS, type Daemon, startDaemon, tempStateRoot } from '../e2e/daemon-harness.ts';
import { goondan } from './goondan-cli.ts';
import { AGENT, writeSwarmBundle } from './several-daemons-bundles.ts';

const KEY = 'shared-key';
const SWARMS = ['north', 'south'] as const;
const bundles = mkdtempSync(join(tmpdir(), 'goondan-several-'));
const stateRoot = tempStateRoot();
const daemons: Daemon[] = [];

beforeAll(async () => {
  for (const swarm of SWARMS) daemons.push(await startDaemon(writeSwarmBundle(bundles, swarm), { stateRoot }));
  for (const daemon of daemons) expect((await daemon.send({ input: 'hi', instanceKey: KEY })).status).toBe(200);
}, DAEMON_TEST_MS);

afterAll(async () => {
  for (const daemon of daemons) await daemon.stop();
  rmSync(stateRoot, { recursive: true, force: true });
  rmSync(bundles, { recursive: true, force: true });
}, DAEMON_TEST_MS);

const stateOf = (swarm: string) => instancePaths(stateRoot, swarm, AGENT, KEY).root;

test('without GOONDAN_API_URL: refused like ps, exit 1, and both daemons keep their state', async () => {
  const run = await goondan(['instance', 'delete', KEY, '--state-root', stateRoot]);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toStartWith('goondan instance: several daemons are running; set GOONDAN_API_URL to pick one:\n');
  for (const swarm of SWARMS) expect(run.stderr).toContain(`  ${swarm} (pid `);
  const ps = await goondan(['ps', '--state-root', stateRoot]);
  expect(ps.stderr.replace('goondan ps: ', '')).toBe(run.stderr.replace('goondan instance: ', ''));
  for (const [i, swarm] of SWARMS.entries()) {
    expect(existsSync(stateOf(swarm))).toBe(true);
    const messages = await daemons[i]?.api(`/v1/instances/${KEY}/messages`);
    expect(messages?.status).toBe(200);
  }
});

test('with GOONDAN_API_URL: only that daemon deletes, and only its own state', async () => {
  const [north] = daemons;
  if (!north) throw new Error('the daemons have not started');
  const run = await goondan(['instance', 'delete', KEY, '--state-root', stateRoot], { env: { GOONDAN_API_URL: north.url } });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toStartWith(`deleted instance '${KEY}': `);
  expect(existsSync(stateOf('north'))).toBe(false);
  expect(existsSync(stateOf('south'))).toBe(true);
});
