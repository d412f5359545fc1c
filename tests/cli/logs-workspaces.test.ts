/**
 * Which swarm `goondan logs` shows: the daemon's the other commands talk to (GOONDAN_API_URL's,
 * else the only one running); with none selected, every workspace, each line beginning with its
 * workspace when there are several. Daemons are stood in for by runtime files naming this (live) process.
 */
import { expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancesDir, runtimeFilePath } from '../../shared/state-paths.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';
import { goondan } from './goondan-cli.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-logs-workspaces-');
const PORTS = { north: 41001, south: 41002 } as const;
type Swarm = keyof typeof PORTS;

/** Workspaces north (events at :00 and :02) and south (at :01), each with one instance. */
function twoWorkspaces(): string {
  const stateRoot = tempDir();
  const seconds: Record<Swarm, number[]> = { north: [0, 2], south: [1] };
  for (const swarm of ['north', 'south'] as const) {
    const dir = join(instancesDir(stateRoot, swarm), 'alpha--k');
    mkdirSync(join(dir, 'messages'), { recursive: true });
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ agentName: 'alpha', instanceKey: 'k' }));
    const lines = seconds[swarm].map((s) => JSON.stringify({ type: 'turn.started', timestamp: `2026-01-01T00:00:0${s}.000Z`, agentName: 'alpha', instanceKey: 'k', traceId: 'ab'.repeat(16) }));
    writeFileSync(join(dir, 'messages', 'runtime-events.jsonl'), `${lines.join('\n')}\n`);
  }
  return stateRoot;
}

function daemonRunning(stateRoot: string, swarm: Swarm): void {
  const file = runtimeFilePath(stateRoot, swarm);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: process.pid, apiUrl: `http://127.0.0.1:${PORTS[swarm]}`, workspaceId: swarm, swarm, startedAt: '', bundlePath: '' }));
}

const line = (second: number) => `2026-01-01T00:00:0${second}.000Z  alpha@k  turn.started    trace=abababab`;

async function logs(stateRoot: string, env: Record<string, string> = {}, ...args: string[]) {
  return goondan(['logs', '--state-root', stateRoot, ...args], { env });
}

test('no daemon and several workspaces: every event, merged by time, each line beginning with its workspace', async () => {
  const stateRoot = twoWorkspaces();
  const run = await logs(stateRoot);
  expect(run.stderr).toBe('');
  expect(run.stdout.trimEnd().split('\n')).toEqual([`north  ${line(0)}`, `south  ${line(1)}`, `north  ${line(2)}`]);
  const json = (await logs(stateRoot, {}, '--json')).stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
  expect(json.map((event) => event.workspaceId)).toEqual(['north', 'south', 'north']);
});

test('several daemons and no GOONDAN_API_URL: every workspace, named', async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  daemonRunning(stateRoot, 'south');
  expect((await logs(stateRoot)).stdout.trimEnd().split('\n')).toEqual([`north  ${line(0)}`, `south  ${line(1)}`, `north  ${line(2)}`]);
});

test("GOONDAN_API_URL: only that daemon's swarm (any loopback name for its host), as before", async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  daemonRunning(stateRoot, 'south');
  for (const url of [`http://127.0.0.1:${PORTS.south}`, `http://localhost:${PORTS.south}/`]) {
    const run = await logs(stateRoot, { GOONDAN_API_URL: url });
    expect(run.stderr).toBe('');
    expect(run.stdout.trimEnd()).toBe(line(1));
  }
});

test('the only daemon running: its swarm alone', async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  expect((await logs(stateRoot)).stdout.trimEnd().split('\n')).toEqual([line(0), line(2)]);
});

test('GOONDAN_API_URL of no daemon under the state root: one line saying what to do, exit 1', async () => {
  const stateRoot = twoWorkspaces();
  daemonRunning(stateRoot, 'north');
  const run = await logs(stateRoot, { GOONDAN_API_URL: 'http://127.0.0.1:41999' });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim()).toBe(
    `goondan logs: GOONDAN_API_URL http://127.0.0.1:41999 is no daemon running under ${stateRoot}, and logs reads its state there: pass that daemon's --state-root, or unset GOONDAN_API_URL`,
  );
});
