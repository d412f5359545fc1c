#!/usr/bin/env bun
/**
 * Bench: capacity on one machine (issue 12). Starts the real daemon (`bin/goondan run`) on a bundle
 * with `lifecycle: {ttlSeconds, maxLiveProcesses}` and drives KEYS instance keys through its HTTP
 * API, CONCURRENCY at a time, each a short conversation: a first message (a new instance) and a
 * second one right after (warm). Then it goes back to SAMPLE of the earliest keys, long passivated,
 * for a third message. Meanwhile it samples the process table every 250 ms.
 * Prints: peak live agent processes, peak tree RSS (daemon + agents), p50/p99 reply latency for
 * new / warm / passivated instances, and events lost (replies missing; must be 0). The floor is a
 * bare Bun spawn → first IPC message, measured in the same run.
 *   bun bench/capacity.ts [--keys 10000] [--max-live 20] [--ttl 2] [--concurrency 16]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readApiToken } from '../orchestrator/http/api-credential.ts';
import { processRssBytes } from '../orchestrator/process/process-rss.ts';
import { freePort } from './fixtures/cluster-processes.ts';
import { fullOrSmoke } from './smoke.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    // Smoke: more keys than live slots, so the earliest are passivated before they are revisited.
    keys: { type: 'string', default: fullOrSmoke('10000', '4') },
    'max-live': { type: 'string', default: fullOrSmoke('20', '2') },
    ttl: { type: 'string', default: fullOrSmoke('2', '1') },
    concurrency: { type: 'string', default: fullOrSmoke('16', '2') },
  },
});
const KEYS = Number(values.keys);
const MAX_LIVE = Number(values['max-live']);
const TTL_SECONDS = Number(values.ttl);
const CONCURRENCY = Number(values.concurrency);
const SAMPLE = Math.min(200, Math.floor(KEYS / 4));
const REPO = join(import.meta.dir, '..');
const BARE = join(import.meta.dir, 'fixtures/bare-child.ts');
const FLOOR_SPAWNS = fullOrSmoke(8, 1);

const BUNDLE = `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: echo }
spec: { provider: mock, model: echo, options: { default: "got: {{input}}" } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: host }
spec: { modelConfig: { modelRef: Model/echo } }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: capacity }
spec:
  entryAgent: Agent/host
  agents: [Agent/host]
  policy:
    lifecycle: { ttlSeconds: ${TTL_SECONDS}, maxLiveProcesses: ${MAX_LIVE} }
`;


async function bareSpawnFloorMs(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < FLOOR_SPAWNS; i++) {
    const t0 = performance.now();
    let child: ReturnType<typeof Bun.spawn> | undefined;
    await new Promise<void>((resolve) => {
      child = Bun.spawn([process.execPath, BARE], { serialization: 'json', stdio: ['ignore', 'ignore', 'inherit'], ipc: () => resolve() });
    });
    times.push(performance.now() - t0);
    child?.kill();
  }
  return percentile(times, 50);
}

const dir = mkdtempSync(join(tmpdir(), 'goondan-capacity-'));
writeFileSync(join(dir, 'goondan.yaml'), BUNDLE);
const stateRoot = join(dir, 'state');
const port = await freePort();
const floorMs = await bareSpawnFloorMs();
const daemon = Bun.spawn([join(REPO, 'bin/goondan'), 'run', dir, '--port', String(port)], {
  env: { ...process.env, GOONDAN_STATE_ROOT: stateRoot, GOONDAN_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const api = `http://127.0.0.1:${port}`;
for (let i = 0; (await fetch(`${api}/readyz`).catch(() => undefined))?.ok !== true; i++) {
  if (i > 600 || daemon.exitCode !== null) throw new Error(`the daemon did not become ready within 60 s (exit ${daemon.exitCode})`);
  await Bun.sleep(100);
}
const headers = { authorization: `Bearer ${readApiToken(stateRoot) ?? ''}`, 'content-type': 'application/json' };

let lost = 0;
async function say(key: string, input: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${api}/v1/events`, { method: 'POST', headers, body: JSON.stringify({ input, instanceKey: key, timeoutMs: 300_000 }) });
  const body = (await response.json()) as { output?: string };
  if (response.status !== 200 || body.output !== `got: ${input}`) lost += 1;
  return performance.now() - t0;
}

let peakLive = 0;
let peakTreeRss = 0;
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const response = await fetch(`${api}/v1/processes`, { headers }).catch(() => undefined);
    if (response?.ok) {
      const { processes } = (await response.json()) as { processes: Array<{ kind: string; pid: number | null; rss: number | null }> };
      const live = processes.filter((p) => p.kind === 'agent' && p.pid !== null);
      peakLive = Math.max(peakLive, live.length);
      const tree = processes.reduce((sum, p) => sum + (p.rss ?? 0), (await processRssBytes(daemon.pid)) ?? 0);
      peakTreeRss = Math.max(peakTreeRss, tree);
    }
    await Bun.sleep(250);
  }
})();

const fresh: number[] = [];
const warm: number[] = [];
const passivated: number[] = [];
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < KEYS) {
      const key = `user-${next++}`;
      fresh.push(await say(key, `hello ${key}`));
      warm.push(await say(key, `again ${key}`));
    }
  }),
);
const driveSeconds = (performance.now() - started) / 1000;
// The earliest keys have been idle for far longer than the TTL: they were passivated.
let back = 0;
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, SAMPLE) }, async () => {
    while (back < SAMPLE) {
      const key = `user-${back++}`;
      passivated.push(await say(key, `back ${key}`));
    }
  }),
);
sampling = false;
await sampler;
daemon.kill('SIGTERM');
await daemon.exited;
rmSync(dir, { recursive: true, force: true });

const ms = (x: number) => `${x.toFixed(1)} ms`;
const rows: Array<[string, string, string]> = [
  ['instance keys driven', String(KEYS), `${(KEYS / driveSeconds).toFixed(1)} new instances/s over ${driveSeconds.toFixed(0)} s`],
  ['peak live agent processes', String(peakLive), `maxLiveProcesses ${MAX_LIVE}`],
  ['peak tree RSS (daemon + agents)', `${(peakTreeRss / 2 ** 20).toFixed(0)} MiB`, ''],
  ['new instance: first reply p50 / p99', `${ms(percentile(fresh, 50))} / ${ms(percentile(fresh, 99))}`, `${(percentile(fresh, 50) / floorMs).toFixed(1)}× bare spawn (${ms(floorMs)})`],
  ['warm instance: reply p50 / p99', `${ms(percentile(warm, 50))} / ${ms(percentile(warm, 99))}`, ''],
  ['passivated instance: reply p50 / p99', `${ms(percentile(passivated, 50))} / ${ms(percentile(passivated, 99))}`, `${SAMPLE} keys`],
  ['events lost', String(lost), 'must be 0'],
];
const width = Math.max(...rows.map((r) => r[0].length));
for (const [name, value, note] of rows) console.log(`${name.padEnd(width)}  ${value.padEnd(22)}  ${note}`);
console.log(
  JSON.stringify({
    bench: 'capacity',
    keys: KEYS,
    maxLiveProcesses: MAX_LIVE,
    peakLive,
    peakTreeRssBytes: peakTreeRss,
    floorSpawnMs: floorMs,
    newP50Ms: percentile(fresh, 50),
    newP99Ms: percentile(fresh, 99),
    warmP50Ms: percentile(warm, 50),
    warmP99Ms: percentile(warm, 99),
    passivatedP50Ms: percentile(passivated, 50),
    passivatedP99Ms: percentile(passivated, 99),
    lost,
  }),
);
