#!/usr/bin/env bun
/**
 * Bench: cluster mode on NATS JetStream (issue 15) against the embedded single node, same run,
 * real processes only (`bin/goondan run bundles/demo …`, `nats-server -js`, HTTP on loopback).
 *   throughput        POST /v1/events with wait: true, THROUGHPUT_EVENTS "hello" events over
 *                     THROUGHPUT_KEYS instance keys, CONCURRENCY in flight; after one untimed event
 *                     per key (spawns are not counted) and one untimed round, the median of
 *                     THROUGHPUT_ROUNDS rounds on the same keys                        events/s
 *   A→B→A latency     HTTP round trip of "write a haiku … reviewed" (writer asks reviewer with
 *                     agents__request and answers), sequential, LATENCY_KEYS keys × LATENCY_PER_KEY
 *                     requests after one untimed request per key                     median, p95
 *   agents__request   the caller's tool-call duration for the same requests, from tool.completed on
 *                     every node's GET /v1/events/stream                              median, p95
 * each for (a) 1 node, local mode; (b) 1 node on NATS; (c) 3 nodes on NATS, requests round-robin
 * over the nodes (the instances and their callees spread by the partition leases). Ratios are
 * (b)/(a) and (c)/(a).
 *   takeover          3 nodes, lease L s: a writer instance owned by node V (GET /v1/processes
 *                     `node`), `kill -9` V's daemon, at once POST a new event for that key to
 *                     another node; the time until its reply, vs L. V's agent processes must exit
 *                     with it (orphans counted). V is then restarted (same id, state root, port) and
 *                     the bench waits until every partition is back with its rendezvous owner.
 *                     REPS times (V rotates), median; for L = 3 (the cluster of (c)) and L = 10.
 *   NATS restart      the cluster of (c): requests every 10 ms while the NATS server is restarted
 *                     (SIGTERM, same port and store); the time from it listening again to the last
 *                     reply of a request accepted before it stopped (bench/cluster-nats-restart.ts).
 *                     REPS times, median
 * The cluster nodes run with --cluster-lease-seconds 3 for (b) and (c) as well (renewal ticks every
 * 0.6 s instead of 2 s at the default 10 s). Each cluster gets a fresh nats-server and store.
 * Prints a table and one JSON line. Not a test: figures only.
 * The temporary directory (state roots, node and nats-server logs) is removed unless the bench fails
 * or --keep-logs is given.
 *   bun bench/cluster.ts [--reps 3] [--long-lease 10 (0: skip)] [--keep-logs]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PARTITIONS } from '../orchestrator/cluster/cluster-options.ts';
import { rendezvousOwner } from '../orchestrator/cluster/partitions.ts';
import { sseFrames } from '../shared/http/sse-frames.ts';
import { natsRestartOnce, type NatsRestart } from './cluster-nats-restart.ts';
import { freePort, type RunningNats, type RunningNode, startNats, startNode, stopAll, stopProcess } from './fixtures/cluster-processes.ts';
import { childPids, isRunning } from './proc-stat.ts';
import { fullOrSmoke } from './smoke.ts';
import { median, percentile } from './stats.ts';
import { loadAverageLine, printTable } from './table.ts';

// Smoke: no long-lease row; it is a fourth cluster start and takeover through the same functions as the short one's.
const { values } = parseArgs({ options: { reps: { type: 'string', default: fullOrSmoke('3', '1') }, 'long-lease': { type: 'string', default: fullOrSmoke('10', '0') }, 'keep-logs': { type: 'boolean', default: false } } });
const REPS = Number(values.reps);
const LONG_LEASE_SECONDS = Number(values['long-lease']);
const LEASE_SECONDS = fullOrSmoke(3, 2);
const BUNDLE = join(import.meta.dir, '../bundles/demo');
const THROUGHPUT_EVENTS = fullOrSmoke(200, 4);
/** The machine is shared and noisy: the throughput is the median of this many rounds on the same keys. */
const THROUGHPUT_ROUNDS = fullOrSmoke(3, 1);
const THROUGHPUT_KEYS = fullOrSmoke(20, 2);
const CONCURRENCY = fullOrSmoke(8, 2);
const LATENCY_KEYS = fullOrSmoke(6, 1);
const LATENCY_PER_KEY = fullOrSmoke(5, 1);
const HAIKU = 'Please write a haiku about rain and have it reviewed';
const REPLY_TIMEOUT_MS = 120_000;

interface Reply {
  ms: number;
  status: number;
  body: { status?: string; output?: string; traceId?: string };
}

async function post(node: RunningNode, instanceKey: string, input: string): Promise<Reply> {
  const t0 = performance.now();
  const response = await fetch(`${node.api}/v1/events`, { method: 'POST', headers: node.headers, body: JSON.stringify({ input, instanceKey, timeoutMs: REPLY_TIMEOUT_MS }) });
  const body = (await response.json()) as Reply['body'];
  return { ms: performance.now() - t0, status: response.status, body };
}

function answered(reply: Reply, expected: string): boolean {
  return reply.status === 200 && reply.body.status === 'ok' && (reply.body.output ?? '').includes(expected);
}

/** `goondan_cluster_partitions_owned` of one node. */
async function ownedPartitions(node: RunningNode): Promise<number> {
  const text = await (await fetch(`${node.api}/metrics`, { headers: node.headers })).text();
  return Number(/^goondan_cluster_partitions_owned\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** Until every partition is held by its rendezvous owner among `nodes` (start-up and rejoin move leases). */
async function waitSettled(nodes: RunningNode[]): Promise<void> {
  const names = nodes.map((node) => node.name);
  const share = (name: string) => Array.from({ length: DEFAULT_PARTITIONS }, (_, p) => rendezvousOwner(p, names)).filter((owner) => owner === name).length;
  let seen: number[] = [];
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await Bun.sleep(100)) {
    seen = await Promise.all(nodes.map(ownedPartitions));
    if (nodes.every((node, i) => seen[i] === share(node.name))) return;
  }
  throw new Error(`partitions did not settle within 60 s: owned ${JSON.stringify(seen)}, rendezvous shares ${JSON.stringify(names.map(share))}`);
}

/**
 * The caller's agents__request durations by traceId, from every node's runtime event stream;
 * `subscribed` once every stream has sent its opening frame (a node subscribes before sending it).
 */
function toolDurations(nodes: RunningNode[]): { byTrace: Map<string, number>; subscribed: Promise<unknown>; stop(): void } {
  const byTrace = new Map<string, number>();
  const abort = new AbortController();
  const subscribed = nodes.map((node) => {
    const { promise: opened, resolve } = Promise.withResolvers<void>();
    void (async () => {
      const response = await fetch(`${node.api}/v1/events/stream?type=tool.completed&agent=writer`, { headers: node.headers, signal: abort.signal });
      if (!response.body) return;
      for await (const frame of sseFrames(response.body)) {
        resolve();
        if (frame.data === '') continue; // the opening `retry:` frame
        const event = JSON.parse(frame.data) as { toolName?: string; traceId?: string; duration?: number };
        if (event.toolName === 'agents__request' && event.traceId && event.duration !== undefined) byTrace.set(event.traceId, event.duration);
      }
    })()
      .catch(() => undefined)
      .finally(resolve); // a stream that failed counts no samples; it does not hold the bench
    return opened;
  });
  return { byTrace, subscribed: Promise.all(subscribed), stop: () => abort.abort() };
}

interface Figures {
  /** Median over THROUGHPUT_ROUNDS. */
  eventsPerSec: number;
  eventsPerSecRounds: number[];
  failed: number;
  latencyMedianMs: number;
  latencyP95Ms: number;
  toolMedianMs: number;
  toolP95Ms: number;
  toolSamples: number;
}

/** Throughput, then A→B→A latency, against `nodes` (round-robin). */
async function measure(nodes: RunningNode[], label: string): Promise<Figures> {
  const at = (i: number) => nodes[i % nodes.length] as RunningNode;
  let failed = 0;
  await Promise.all(Array.from({ length: THROUGHPUT_KEYS }, (_, k) => post(at(k), `${label}-tp-${k}`, 'hello warm-up')));
  const rounds: number[] = [];
  // Round 0 is a warm-up (the agents' and the daemons' JIT; later rounds were faster without it).
  for (let round = 0; round <= THROUGHPUT_ROUNDS; round++) {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < THROUGHPUT_EVENTS) {
          const i = next++;
          const input = `hello ${round}-${i}`;
          if (!answered(await post(at(i), `${label}-tp-${i % THROUGHPUT_KEYS}`, input), `'${input}'`)) failed += 1;
        }
      }),
    );
    if (round > 0) rounds.push(THROUGHPUT_EVENTS / ((performance.now() - t0) / 1000));
  }

  const tools = toolDurations(nodes);
  // Not a fixed pause: on a loaded machine one could end before a stream is open and lose a smoke run's only sample.
  await tools.subscribed;
  const latencies: number[] = [];
  const traces: string[] = [];
  let sent = 0;
  for (let k = 0; k < LATENCY_KEYS; k++) {
    for (let i = 0; i <= LATENCY_PER_KEY; i++) {
      const reply = await post(at(sent++), `${label}-rt-${k}`, HAIKU);
      if (!answered(reply, 'The reviewer says')) failed += 1;
      if (i === 0) continue; // spawns writer and reviewer
      latencies.push(reply.ms);
      if (reply.body.traceId) traces.push(reply.body.traceId);
    }
  }
  for (const deadline = Date.now() + 3_000; Date.now() < deadline && traces.some((t) => !tools.byTrace.has(t)); ) await Bun.sleep(50);
  tools.stop();
  const toolMs = traces.flatMap((t) => tools.byTrace.get(t) ?? []);
  return {
    eventsPerSec: median(rounds),
    eventsPerSecRounds: rounds,
    failed,
    latencyMedianMs: median(latencies),
    latencyP95Ms: percentile(latencies, 95),
    toolMedianMs: median(toolMs),
    toolP95Ms: percentile(toolMs, 95),
    toolSamples: toolMs.length,
  };
}

async function startCluster(dir: string, count: number, leaseSeconds: number, prefix: string): Promise<{ nodes: RunningNode[]; nats: RunningNats }> {
  const nats = await startNats(join(dir, `${prefix}-nats`));
  const nodes = await Promise.all(
    Array.from({ length: count }, async (_, i) =>
      startNode(BUNDLE, { name: `${prefix}${i + 1}`, stateRoot: join(dir, `${prefix}${i + 1}`), port: await freePort(), cluster: { url: nats.url, leaseSeconds } }, join(dir, 'logs')),
    ),
  );
  await waitSettled(nodes);
  return { nodes, nats };
}

interface Takeover {
  ms: number;
  ok: boolean;
  orphans: number;
}

/** Kills nodes[victim] with SIGKILL mid-life and times the first reply for one of its instances through another node. */
async function takeoverOnce(nodes: RunningNode[], victim: number, tag: string, logDir: string): Promise<Takeover> {
  const dead = nodes[victim] as RunningNode;
  const sender = nodes[(victim + 1) % nodes.length] as RunningNode;
  let key: string | undefined;
  for (let round = 0; key === undefined; round++) {
    if (round === 5) throw new Error(`no instance landed on ${dead.name} after 5 rounds of 8 keys`);
    const keys = Array.from({ length: 8 }, (_, j) => `${tag}-${round}-${j}`);
    await Promise.all(keys.map((k) => post(dead, k, 'hello before')));
    const rows = ((await (await fetch(`${sender.api}/v1/processes`, { headers: sender.headers })).json()) as { processes: Array<{ agent: string | null; instanceKey: string; node?: string }> }).processes;
    key = rows.find((row) => row.agent === 'writer' && row.node === dead.name && keys.includes(row.instanceKey))?.instanceKey;
  }
  const children = childPids(dead.pid);
  process.kill(dead.pid, 'SIGKILL');
  const t0 = performance.now();
  const reply = await post(sender, key, 'hello after');
  const ms = performance.now() - t0;
  await dead.proc.exited;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && children.some(isRunning); ) await Bun.sleep(50);
  const orphans = children.filter(isRunning);
  for (const pid of orphans) process.kill(pid, 'SIGKILL'); // counted above; not left behind
  nodes[victim] = await startNode(BUNDLE, dead, logDir);
  await waitSettled(nodes);
  return { ms, ok: answered(reply, "'hello after'"), orphans: orphans.length };
}

async function takeovers(nodes: RunningNode[], leaseSeconds: number, logDir: string): Promise<Takeover[]> {
  const results: Takeover[] = [];
  for (let rep = 0; rep < REPS; rep++) results.push(await takeoverOnce(nodes, rep % nodes.length, `to${leaseSeconds}-${rep}`, logDir));
  return results;
}

async function stopNodes(nodes: RunningNode[]): Promise<void> {
  await Promise.all(nodes.map((node) => stopProcess(node.proc)));
}

const dir = mkdtempSync(join(tmpdir(), 'goondan-bench-cluster-'));
const logDir = join(dir, 'logs');
let keepDir = values['keep-logs'];
let interrupted = false;
const onSignal = (signal: NodeJS.Signals) => {
  if (interrupted) return;
  interrupted = true;
  console.error(`\n${signal}: stopping every process the bench started`);
  void stopAll().finally(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
const startedAt = performance.now();
try {
  const local = await startNode(BUNDLE, { name: 'local', stateRoot: join(dir, 'local'), port: await freePort() }, logDir);
  const a = await measure([local], 'a');
  await stopNodes([local]);

  const single = await startCluster(dir, 1, LEASE_SECONDS, 'b');
  const b = await measure(single.nodes, 'b');
  await stopAll();

  const three = await startCluster(dir, 3, LEASE_SECONDS, 'c');
  const c = await measure(three.nodes, 'c');
  const short = await takeovers(three.nodes, LEASE_SECONDS, logDir);
  const restarts: NatsRestart[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    restarts.push(await natsRestartOnce(three.nodes, three.nats, `nr${rep}`));
    await waitSettled(three.nodes);
  }
  await stopAll();

  let long: Takeover[] = [];
  if (LONG_LEASE_SECONDS > 0) {
    const cluster = await startCluster(dir, 3, LONG_LEASE_SECONDS, 'd');
    long = await takeovers(cluster.nodes, LONG_LEASE_SECONDS, logDir);
    await stopAll();
  }

  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const ratio = (x: number, floor: number) => `${(x / floor).toFixed(2)}×`;
  const rows: string[][] = [['measure', '(a) 1 node local', '(b) 1 node NATS', '(c) 3 nodes NATS', '(b)/(a)', '(c)/(a)']];
  const row = (name: string, pick: (f: Figures) => number, show: (x: number) => string) => rows.push([name, show(pick(a)), show(pick(b)), show(pick(c)), ratio(pick(b), pick(a)), ratio(pick(c), pick(a))]);
  row(`throughput (${THROUGHPUT_EVENTS} ev, ${THROUGHPUT_KEYS} keys, ${CONCURRENCY} in flight, median of ${THROUGHPUT_ROUNDS})`, (f) => f.eventsPerSec, (x) => `${x.toFixed(0)} ev/s`);
  row('A→B→A HTTP round trip, median', (f) => f.latencyMedianMs, ms);
  row('A→B→A HTTP round trip, p95', (f) => f.latencyP95Ms, ms);
  row('caller agents__request, median', (f) => f.toolMedianMs, ms);
  row('caller agents__request, p95', (f) => f.toolP95Ms, ms);
  rows.push(['failed replies', String(a.failed), String(b.failed), String(c.failed), '', '']);
  const takeoverRow = (leaseSeconds: number, results: Takeover[]) => {
    const times = results.map((r) => r.ms);
    rows.push([
      `takeover after kill -9, lease ${leaseSeconds} s (median of ${results.length})`,
      ms(median(times)),
      `runs ${times.map((t) => (t / 1000).toFixed(2)).join(' / ')} s`,
      `failed ${results.filter((r) => !r.ok).length}, orphans ${results.reduce((n, r) => n + r.orphans, 0)}`,
      `${(median(times) / (leaseSeconds * 1000)).toFixed(2)}× lease`,
      '',
    ]);
  };
  takeoverRow(LEASE_SECONDS, short);
  if (long.length > 0) takeoverRow(LONG_LEASE_SECONDS, long);
  rows.push([
    `NATS restart, lease ${LEASE_SECONDS} s: back → last waiting reply (median of ${restarts.length})`,
    ms(median(restarts.map((r) => r.settleMs))),
    `runs ${restarts.map((r) => (r.settleMs / 1000).toFixed(2)).join(' / ')} s`,
    `waited ${restarts.map((r) => r.waited).join('/')}, refused ${restarts.map((r) => r.refused).join('/')} (slowest ${(Math.max(...restarts.map((r) => r.slowestRefusalMs)) / 1000).toFixed(2)} s), failed ${restarts.reduce((n, r) => n + r.failed, 0)}`,
    '',
    '',
  ]);
  console.log(`${loadAverageLine()}; bench took ${((performance.now() - startedAt) / 1000).toFixed(0)} s`);
  printTable(rows);
  const takeoverJson = (leaseSeconds: number, results: Takeover[]) => ({
    leaseSeconds,
    medianMs: median(results.map((r) => r.ms)),
    runsMs: results.map((r) => r.ms),
    ratioToLease: median(results.map((r) => r.ms)) / (leaseSeconds * 1000),
    failed: results.filter((r) => !r.ok).length,
    orphans: results.reduce((n, r) => n + r.orphans, 0),
  });
  console.log(
    JSON.stringify({
      bench: 'cluster',
      loadAverage: loadavg(),
      local: a,
      natsOneNode: b,
      natsThreeNodes: c,
      throughputRatioOneNode: b.eventsPerSec / a.eventsPerSec,
      throughputRatioThreeNodes: c.eventsPerSec / a.eventsPerSec,
      latencyRatioOneNode: b.latencyMedianMs / a.latencyMedianMs,
      latencyRatioThreeNodes: c.latencyMedianMs / a.latencyMedianMs,
      takeover: [takeoverJson(LEASE_SECONDS, short), ...(long.length > 0 ? [takeoverJson(LONG_LEASE_SECONDS, long)] : [])],
      natsRestart: { medianSettleMs: median(restarts.map((r) => r.settleMs)), runs: restarts },
    }),
  );
} catch (error) {
  if (interrupted) await new Promise(() => {}); // the signal handler cleans up and exits
  keepDir = true;
  console.error('bench failed');
  throw error;
} finally {
  await stopAll();
  if (keepDir) console.error(`logs and state kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
