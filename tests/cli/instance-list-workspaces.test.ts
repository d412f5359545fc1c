/**
 * Which swarm `goondan instance list` shows, as `goondan logs`: the daemon's the other commands
 * talk to (GOONDAN_API_URL's, else the only one running); with none selected, every workspace,
 * each row naming its workspace. Daemons are stood in for by runtime files naming this (live) process.
 */
import { expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancesDir, runtimeFilePath } from '../../shared/state-paths.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';
import { goondan } from './goondan-cli.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-instance-list-');
const PORTS = { north: 41011, south: 41012 } as const;
type Swarm = keyof typeof PORTS;

/** Workspaces north and south, each with its own instance (north-key, south-key) of agent alpha. */
function twoWorkspaces(): string {
  const stateRoot = tempDir();
  for (const swarm of ['north', 'south'] as const) {
    const dir = join(instancesDir(stateRoot, swarm), `alpha--${swarm}`);
    mkdirSync(join(dir, 'messages'), { recursive: true });
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ agentName: 'alpha', instanceKey: `${swarm}-key` }));
  }
  return stateRoot;
}

function daemonRunning(stateRoot: string, swarm: Swarm): void {
  const file = runtimeFilePath(stateRoot, swarm);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: process.pid, apiUrl: `http://127.0.0.1:${PORTS[swarm]}`, workspaceId: swarm, swarm, startedAt: '', bundlePath: '' }));
}

/** [instance, workspace] of each table row. */
async function listed(stateRoot: string, env: Record<string, string> = {}): Promise<string[][]> {
  const run = await goondan(['instance', 'list', '--state-root', stateRoot], { env });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const [header, ...rows] = run.stdout.trimEnd().split('\n').map((line) => line.trim().split(/\s+/));
  expect(header?.slice(0, 3)).toEqual(['INSTANCE', 'AGENT', 'WORKSPACE']);
  return rows.map((row) => [String(row[0]), String(row[2])]);
}

test('several daemons and no GOONDAN_API_URL: every workspace, each row naming its own (--json: workspaceId)', async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  daemonRunning(stateRoot, 'south');
  expect(await listed(stateRoot)).toEqual([
    ['north-key', 'north'],
    ['south-key', 'south'],
  ]);
  const json = JSON.parse((await goondan(['instance', 'list', '--json', '--state-root', stateRoot])).stdout);
  expect(json.map((row: { workspaceId: string }) => row.workspaceId)).toEqual(['north', 'south']);
});

test("GOONDAN_API_URL: only that daemon's swarm (any loopback name for its host)", async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  daemonRunning(stateRoot, 'south');
  for (const url of [`http://127.0.0.1:${PORTS.south}`, `http://localhost:${PORTS.south}/`]) {
    expect(await listed(stateRoot, { GOONDAN_API_URL: url })).toEqual([['south-key', 'south']]);
  }
});

test('the only daemon running: its swarm alone', async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  expect(await listed(stateRoot)).toEqual([['north-key', 'north']]);
});

test('GOONDAN_API_URL of no daemon under the state root: one line saying what to do, exit 1', async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  const run = await goondan(['instance', 'list', '--state-root', stateRoot], { env: { GOONDAN_API_URL: 'http://127.0.0.1:41999' } });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim()).toBe(
    `goondan instance: GOONDAN_API_URL http://127.0.0.1:41999 is no daemon running under ${stateRoot}, and instance list reads its state there: pass that daemon's --state-root, or unset GOONDAN_API_URL`,
  );
});
