#!/usr/bin/env bun
/**
 * Bench: where an idle agent process's memory goes, against a bare Bun child measured in the same run.
 *   module costs   RSS / private memory a module (or a first use of a Bun subsystem) adds to a bare
 *                  Bun child that loads it, Bun.gc(true)'d; not additive (loaded modules share the
 *                  pages of the `bun` binary they touch)
 *   agent          a spare before its rehearsal (the swarm's preloads loaded), a daemon's warm spare
 *                  after it, and an instance idle after one turn (mock model, tests/fixtures/e2e/swarm,
 *                  agent alpha): RSS, PSS, private and shared-clean memory from /proc/PID/smaps_rollup,
 *                  as ratios to the bare child
 *                                                                     target RSS ≤ 1.5× bare
 * Shared-clean pages are mostly the `bun` binary's own code that the process ran: they count in
 * RSS but are one copy for every process on the machine; private memory is what each one costs.
 * PSS splits shared pages among the processes mapping them, so it depends on what else runs.
 * Prints tables and one JSON line. Not a test: figures only.   bun bench/agent-rss.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Orchestrator } from '../orchestrator/daemon/orchestrator.ts';
import { agentLaunchOptions } from '../orchestrator/daemon/spawn-specs.ts';
import { loadSwarmConfig } from '../orchestrator/daemon/swarm-config.ts';
import { readApiToken } from '../orchestrator/http/api-credential.ts';
import { childPids } from './proc-stat.ts';
import { fullOrSmoke } from './smoke.ts';
import { median } from './stats.ts';

const REPO = join(import.meta.dir, '..');
const BUNDLE = join(REPO, 'tests/fixtures/e2e/swarm');
const BARE = join(import.meta.dir, 'fixtures/bare-child.ts');
const RUNS = fullOrSmoke(5, 1);
/** Runs of each module probe, against as many of the empty probe. */
const PROBE_RUNS = fullOrSmoke(3, 1);
const AFTER_TURN_KEYS = fullOrSmoke(5, 1);
/** Let start-up allocations settle before reading the process's memory. */
const SETTLE_MS = fullOrSmoke(400, 50);
// Children inherit the environment: keep their log lines out of the figures.
process.env.GOONDAN_LOG_LEVEL ??= 'warn';

interface Memory {
  rss: number;
  pss: number;
  private: number;
  sharedClean: number;
}

function memoryOf(pid: number): Memory {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024;
  return { rss: kb('Rss'), pss: kb('Pss'), private: kb('Private_Clean') + kb('Private_Dirty'), sharedClean: kb('Shared_Clean') };
}

/** Field-wise medians of several readings. */
function medianMemory(readings: readonly Memory[]): Memory {
  const of = (field: keyof Memory): number => median(readings.map((r) => r[field]));
  return { rss: of('rss'), pss: of('pss'), private: of('private'), sharedClean: of('sharedClean') };
}

/** Spawns `command` as an IPC child, waits for its first message and SETTLE_MS more, reads its memory, kills it. */
async function childMemory(command: string[], env: Record<string, string | undefined> = process.env, runs = RUNS): Promise<Memory> {
  const readings: Memory[] = [];
  for (let i = 0; i < runs; i++) {
    const { promise: ready, resolve } = Promise.withResolvers<void>();
    // JSON serialization, as the daemon launches its children: the default (advanced) loads ~2 MB more.
    const child = Bun.spawn(command, { env, serialization: 'json', stdio: ['ignore', 'ignore', 'inherit'], ipc: () => resolve() });
    // A probe whose import fails exits before its hello: fail, not wait forever.
    const early = await Promise.race([ready.then(() => undefined), child.exited]);
    if (early !== undefined) throw new Error(`${command.join(' ')} exited ${early} before its first IPC message`);
    await Bun.sleep(SETTLE_MS);
    readings.push(memoryOf(child.pid));
    child.kill();
    await child.exited;
  }
  return medianMemory(readings);
}

/** What a bare child costs more once it has run `code` (top-level await allowed). */
const MODULE_PROBES: Array<[label: string, code: string]> = [
  ['node:path', "await import('node:path');"],
  ['node:fs', "await import('node:fs');"],
  ['node:fs + node:path + node:module (agent floor)', "await import('node:fs'); await import('node:path'); await import('node:module');"],
  ['node:util', "await import('node:util');"],
  ['node:async_hooks', "await import('node:async_hooks');"],
  ['node:dns/promises', "await import('node:dns/promises');"],
  ['node:crypto', "await import('node:crypto');"],
  ['node:child_process', "await import('node:child_process');"],
  ['node:fs/promises', "await import('node:fs/promises');"],
  ['a cached ajv validator (require .cjs)', `require(${JSON.stringify(join(REPO, 'node_modules/ajv/dist/runtime/equal.js'))});`],
  ['pino', "await import('pino');"],
  ['ajv (compiler)', "await import('ajv');"],
  ['zod', "await import('zod');"],
  ['ai', "await import('ai');"],
  ['@ai-sdk/openai', "await import('@ai-sdk/openai');"],
  ['@opentelemetry/sdk-trace', "await import('@opentelemetry/sdk-trace');"],
  ['@modelcontextprotocol/sdk client', "await import('@modelcontextprotocol/sdk/client/index.js');"],
  ['web-tree-sitter + bash grammar', `const { Parser, Language } = await import('web-tree-sitter'); await Parser.init(); await Language.load(${JSON.stringify(join(REPO, 'node_modules/tree-sitter-bash/tree-sitter-bash.wasm'))});`],
  [
    'a hot loop (optimizing JIT)',
    "let n = 0; const s = 'x'.repeat(200000); for (let i = 0; i < s.length; i++) n += s.charCodeAt(i); globalThis.n = n;",
  ],
];

/** Each probe against the same child with no code (also Bun.gc(true)'d), PROBE_RUNS runs each. */
async function moduleCosts(dir: string): Promise<Array<{ label: string; rssMB: number; privateMB: number }>> {
  const probe = async (name: string, code: string): Promise<Memory> => {
    const script = join(dir, `${name}.ts`);
    writeFileSync(script, `${code}\nBun.gc(true);\n${readFileSync(BARE, 'utf8')}`);
    return childMemory([process.execPath, script], process.env, PROBE_RUNS);
  };
  const empty = await probe('empty', '');
  const rows: Array<{ label: string; rssMB: number; privateMB: number }> = [];
  for (const [index, [label, code]] of MODULE_PROBES.entries()) {
    const memory = await probe(`probe-${index}`, code);
    rows.push({ label, rssMB: memory.rss - empty.rss, privateMB: memory.private - empty.private });
  }
  return rows;
}

/**
 * Through the real daemon: its warm spares (rehearsed: they ran a turn and a tool call before any
 * assignment), then instances idle after one turn each, on new keys.
 */
async function daemonProcesses(stateRoot: string): Promise<{ spare: Memory; turned: Memory }> {
  const silent = pino({ level: 'silent' }, new Writable({ write: (_c, _e, cb) => cb() }));
  const orchestrator = new Orchestrator({ bundlePath: BUNDLE, stateRoot, host: '127.0.0.1', port: 0, watch: false, processEnv: process.env, logger: silent, childOutput: 'inherit', interactive: false });
  await orchestrator.start();
  try {
    await Bun.sleep(SETTLE_MS);
    const spares = childPids(process.pid);
    if (spares.length === 0) throw new Error('the daemon started no warm spare');
    const spare = medianMemory(spares.map(memoryOf));
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${readApiToken(stateRoot)}` };
    for (let i = 0; i < AFTER_TURN_KEYS; i++) {
      const response = await fetch(`${orchestrator.apiUrl}/v1/events`, { method: 'POST', headers, body: JSON.stringify({ input: 'hello', agent: 'alpha', instanceKey: `rss-${i}` }) });
      if (response.status !== 200) throw new Error(`reply for rss-${i}: HTTP ${response.status} ${await response.text()}`);
    }
    await Bun.sleep(SETTLE_MS);
    const rows = (await (await fetch(`${orchestrator.apiUrl}/v1/processes`, { headers })).json()) as { processes?: Array<{ instanceKey?: string; pid?: number | null }> };
    const pids = (rows.processes ?? []).filter((row) => row.instanceKey?.startsWith('rss-') && row.pid).map((row) => row.pid as number);
    if (pids.length === 0) throw new Error('no instance rss-* is running after its turn');
    return { spare, turned: medianMemory(pids.map(memoryOf)) };
  } finally {
    await orchestrator.stop();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-agent-rss-'));
  try {
    const floor = await childMemory([process.execPath, BARE]);
    const modules = await moduleCosts(dir);
    const config = await loadSwarmConfig({ bundlePath: BUNDLE, processEnv: process.env });
    // The daemon builds the agent bundle on start: after it, spares start from the bundle too.
    const { spare: warmSpare, turned } = await daemonProcesses(join(dir, 'state'));
    const launch = agentLaunchOptions(config, 'inherit');
    const spare = await childMemory(launch.command, launch.env);

    const mb = (value: number): string => `${value.toFixed(1)} MB`;
    const delta = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(1)} MB`;
    console.log('Module costs in a bare Bun child (not additive)');
    console.log(`  ${'module'.padEnd(48)} ${'RSS'.padStart(9)} ${'private'.padStart(9)}`);
    for (const row of modules) console.log(`  ${row.label.padEnd(48)} ${delta(row.rssMB).padStart(9)} ${delta(row.privateMB).padStart(9)}`);
    console.log('\nAgent process vs a bare Bun child (median)');
    console.log(`  ${''.padEnd(38)} ${'RSS'.padStart(9)} ${'PSS'.padStart(9)} ${'private'.padStart(9)} ${'shared'.padStart(9)} ${'RSS ratio'.padStart(10)}  target`);
    const line = (label: string, m: Memory, target: string): void =>
      console.log(`  ${label.padEnd(38)} ${mb(m.rss).padStart(9)} ${mb(m.pss).padStart(9)} ${mb(m.private).padStart(9)} ${mb(m.sharedClean).padStart(9)} ${`${(m.rss / floor.rss).toFixed(2)}×`.padStart(10)}  ${target}`);
    line('bare Bun child (floor)', floor, '');
    line('agent preloaded, before its rehearsal', spare, '');
    line('a daemon’s warm spare (rehearsed)', warmSpare, '');
    line('agent idle after one turn', turned, '≤ 1.5×');
    console.log(
      JSON.stringify({
        bench: 'agent-rss',
        loadAverage: loadavg(),
        bareRssBytes: floor.rss * 1048576,
        spareRssBytes: spare.rss * 1048576,
        rehearsedSpareRssBytes: warmSpare.rss * 1048576,
        afterTurnRssBytes: turned.rss * 1048576,
        afterTurnRssRatio: turned.rss / floor.rss,
        afterTurnPrivateBytes: turned.private * 1048576,
        barePrivateBytes: floor.private * 1048576,
        modules: Object.fromEntries(modules.map((row) => [row.label, { rssBytes: row.rssMB * 1048576, privateBytes: row.privateMB * 1048576 }])),
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
