#!/usr/bin/env bun
/**
 * Bench: the daemon's process and routing costs, each against a floor measured in the same run.
 *   spawn → started      agent process (assigned a real plan, engine built), from the warm pool and cold, vs a bare
 *                        Bun child's first IPC message                                 target warm ≤ 2×, cold ≤ 10×
 *   idle RSS             idle agent process (after one turn) vs a bare Bun child         target ≤ 1.5×
 *   HTTP reply, warm     POST /v1/events → reply on a warm instance vs a bare Bun.serve loopback round trip
 *                        (default `fsync: batch`, and `never`), beside one append + fsync   target ≤ 1 ms
 *   HTTP reply, new key  the same on new instanceKeys arriving 10 per second vs the warm reply (back to back,
 *                        and one every 100 ms, as the new keys come)                     target ≤ 2×;
 *                        also for a first message whose turn calls a tool, against the warm instance asked alike;
 *                        then at 25 per second (how far the pool keeps up), and the CPU a new instance's
 *                        process used from its spawn to idle (what bounds new instances per second)
 *   agents__request RT   caller's tool-call duration A→B→A with the mock model vs the same four IPC hops
 *                        between bare Bun children, paced alike (bench/ipc-relay-floor.ts)  target ≤ 1.5 ms median;
 *                        short conversations of new pairs, and one long-lived pair back to back (bench/daemon-inter-agent.ts)
 *   routing throughput   events/s flood→orchestrator→sink (validation, inbox, acks) vs a raw relay with the same
 *                        fan-out: one sink instance, and MANY_SINKS sink instances (distinct instanceKeys)
 *                                                               target ≥ 70 % or ≥ 10,000 ev/s across many instances
 * Prints a table and one JSON line. Not a test: figures only.   bun bench/daemon.ts [--routing]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Writable } from 'node:stream';
import { Orchestrator } from '../orchestrator/daemon/orchestrator.ts';
import { OrchestratorCore } from '../orchestrator/daemon/orchestrator-core.ts';
import { agentLaunchOptions, agentSpawnSpec } from '../orchestrator/daemon/spawn-specs.ts';
import { loadSwarmConfig } from '../orchestrator/daemon/swarm-config.ts';
import { readApiToken } from '../orchestrator/http/api-credential.ts';
import { prepareAgentEntry } from '../orchestrator/process/agent-bundle.ts';
import { prepareAgentEngineOptions } from '../orchestrator/process/agent-engine-options.ts';
import { bunChildLauncher } from '../orchestrator/process/bun-child.ts';
import { DEFAULT_BACKOFF } from '../orchestrator/process/crash-backoff.ts';
import type { ManagedProcess } from '../orchestrator/process/managed-process.ts';
import { processRssBytes } from '../orchestrator/process/process-rss.ts';
import { interAgentRoundTrips, LONG_PAIR_WARMUP } from './daemon-inter-agent.ts';
import { MANY_SINKS, routing } from './daemon-routing.ts';
import { bundleWithFsync, fsyncFloorMs } from './fsync-floor.ts';
import { bareChildFloors } from './bare-child-floors.ts';
import { procStat } from './proc-stat.ts';
import { fullOrSmoke } from './smoke.ts';
import { median, percentile } from './stats.ts';
import { loadAverageLine, printTable } from './table.ts';

const BUNDLE = join(import.meta.dir, '../tests/fixtures/e2e/swarm');
/** Spawns of each kind (bare child, cold agent, warm agent) whose medians are compared. */
const SPAWNS = fullOrSmoke(8, 1);
/** Replies on the warm instance before those measured (its code warms up). */
const WARM_UP_REPLIES = fullOrSmoke(10, 1);
const WARM_REPLIES = fullOrSmoke(60, 1);
/** About how far apart a warm instance's replies come back to back (each ~2 ms): the disk idles between their syncs. */
const REPLY_GAP_MS = 2;
const NEW_KEYS = fullOrSmoke(30, 2);
/** A first message whose turn calls one tool (the e2e swarm's probe__pid), as most agents' first turns do. */
const TOOL_INPUT = 'whats your pid';
/** New instanceKeys arrive this far apart: 10 per second. */
const NEW_KEY_GAP_MS = fullOrSmoke(100, 10);
/** …and this far apart in a second burst (25 per second): how far the pool keeps up past the target. */
const FAST_NEW_KEY_GAP_MS = fullOrSmoke(40, 4);
/** Before reading a started agent's RSS: its start-up allocations settle. */
const RSS_SETTLE_MS = fullOrSmoke(300, 20);
/** Before each warm spawn: the pool refills, as an idle daemon's does between new conversations. */
const POOL_REFILL_MS = fullOrSmoke(400, 200);
/** After a burst of new keys: their instances go idle and the pool refills. */
const BURST_PAUSE_MS = fullOrSmoke(500, 50);
/** `bun bench/daemon.ts --routing`: the routing rows only (~10 s). */
const ROUTING_ONLY = process.argv.includes('--routing');
// Children inherit the environment: keep their log lines out of the figures.
process.env.GOONDAN_LOG_LEVEL ??= 'warn';
const silent = pino({ level: 'silent' }, new Writable({ write: (_c, _e, cb) => cb() }));

/** Real agent processes: spawn → runtime.started (assigned, engine built), cold and from the warm pool, and idle RSS. */
async function agentSpawns(stateRoot: string): Promise<{ coldMs: number; warmMs: number; rssBytes: number }> {
  // Agents start from the bundled entry, as under a daemon (the core alone would start them from the sources).
  await prepareAgentEntry(process.env, silent);
  prepareAgentEngineOptions(process.env, silent);
  const config = await loadSwarmConfig({ bundlePath: BUNDLE, processEnv: process.env });
  const startedAt = new Map<string, () => void>();
  let usePool = false;
  let core: OrchestratorCore | undefined;
  core = new OrchestratorCore({
    onProcessStarted: (proc) => startedAt.get(proc.key)?.(),
    config: () => ({
      swarm: config.swarm,
      connections: [],
      spawnSpec: (_kind, name, key) => agentSpawnSpec(config, { bundlePath: BUNDLE, stateRoot }, name, key),
      agentLaunchOptions: () => agentLaunchOptions(config, 'inherit'),
      modelOf: (agent) => config.agents.get(agent)?.model,
    }),
    stateRoot,
    launcher: bunChildLauncher(() => {}),
    logger: silent,
    backoff: DEFAULT_BACKOFF,
    output: 'inherit',
    warmPoolSize: 1,
    httpApprovals: false,
    promptInteractive: () => false,
  });
  const pool = core.pool;
  const take = pool.take.bind(pool);
  pool.take = () => (usePool ? take() : undefined);
  const spawnOnce = async (key: string): Promise<{ ms: number; proc: ManagedProcess | undefined }> => {
    const t0 = performance.now();
    let proc: ManagedProcess | undefined;
    await new Promise<void>((resolve) => {
      startedAt.set(`alpha:${key}`, resolve);
      proc = core?.supervisor.ensure('agent', 'alpha', key);
    });
    return { ms: performance.now() - t0, proc };
  };
  const cold: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < SPAWNS; i++) {
    const { ms, proc } = await spawnOnce(`cold-${i}`);
    cold.push(ms);
    await Bun.sleep(RSS_SETTLE_MS);
    if (proc?.pid) rss.push((await processRssBytes(proc.pid)) ?? 0);
  }
  usePool = true;
  const warm: number[] = [];
  for (let i = 0; i < SPAWNS; i++) {
    core.pool.fill();
    await Bun.sleep(POOL_REFILL_MS);
    warm.push((await spawnOnce(`warm-${i}`)).ms);
  }
  await core.stop(5_000);
  return { coldMs: median(cold), warmMs: median(warm), rssBytes: median(rss) };
}

/**
 * POST /v1/events → reply through the real daemon: a warm instance back to back (interleaved with
 * its floor, a bare Bun.serve answering a small JSON body over loopback), the same at the new keys'
 * rate (one request every NEW_KEY_GAP_MS), then new keys at that rate. A request after tens of
 * milliseconds of idleness finds cold caches and sleeping processes (the bare floor too, paced
 * alike): the paced warm reply is the like-for-like measure of what being new costs.
 */
interface HttpReplies {
  /** Bare Bun.serve loopback round trip: back to back, and after the paced gap. */
  floorMs: number;
  pacedFloorMs: number;
  /** A warm instance: back to back, and one request every NEW_KEY_GAP_MS, as the new keys come. */
  warmMs: number;
  pacedWarmMs: number;
  newKeyMs: number;
  newKeyP95Ms: number;
  /** The same when the message's turn calls a tool: the warm instance, and new keys, at the new keys' rate. */
  pacedWarmToolMs: number;
  newKeyToolMs: number;
  fastNewKeyMs: number;
  fastNewKeyP95Ms: number;
  /** CPU an agent process used from its spawn to idle after its first turn (user + system, all threads). */
  newInstanceCpuMs: number;
  afterTurnRssBytes: number;
}

async function httpReplies(stateRoot: string, bundle = BUNDLE, warmOnly = false): Promise<HttpReplies> {
  const bare = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async (request) => Response.json({ status: 'ok', output: `echo: ${((await request.json()) as { input?: string }).input}` }) });
  const floorPost = async (input: string): Promise<number> => {
    const t0 = performance.now();
    await (await fetch(`http://127.0.0.1:${bare.port}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) })).json();
    return performance.now() - t0;
  };
  const orchestrator = new Orchestrator({ bundlePath: bundle, stateRoot, host: '127.0.0.1', port: 0, watch: false, processEnv: process.env, logger: silent, childOutput: 'inherit', interactive: false });
  await orchestrator.start();
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${readApiToken(stateRoot)}` };
  const post = async (instanceKey: string, input: string): Promise<number> => {
    const t0 = performance.now();
    const response = await fetch(`${orchestrator.apiUrl}/v1/events`, { method: 'POST', headers, body: JSON.stringify({ input, agent: 'alpha', instanceKey }) });
    const body = (await response.json()) as { status?: string };
    if (response.status !== 200 || body.status !== 'ok') throw new Error(`reply for ${instanceKey}: HTTP ${response.status} ${JSON.stringify(body)}`);
    return performance.now() - t0;
  };
  await post('warm', 'wake up');
  const warm: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < WARM_UP_REPLIES + WARM_REPLIES; i++) {
    const floorMs = await floorPost(`hello ${i}`);
    const ms = await post('warm', `hello ${i}`);
    if (i < WARM_UP_REPLIES) continue;
    floor.push(floorMs);
    warm.push(ms);
  }
  if (warmOnly) {
    await bare.stop(true);
    await orchestrator.stop();
    return { floorMs: median(floor), pacedFloorMs: 0, warmMs: median(warm), pacedWarmMs: 0, newKeyMs: 0, newKeyP95Ms: 0, pacedWarmToolMs: 0, newKeyToolMs: 0, fastNewKeyMs: 0, fastNewKeyP95Ms: 0, newInstanceCpuMs: 0, afterTurnRssBytes: 0 };
  }
  // The warm instance and its floor at the new keys' rate: the same idle gap before each request.
  const pacedFloor: number[] = [];
  const pacedWarm: number[] = [];
  for (let i = 0; i < NEW_KEYS; i++) {
    await Bun.sleep(NEW_KEY_GAP_MS);
    pacedFloor.push(await floorPost(`paced ${i}`));
    await Bun.sleep(NEW_KEY_GAP_MS);
    pacedWarm.push(await post('warm', `paced ${i}`));
  }
  const pacedWarmTool: number[] = [];
  for (let i = 0; i < NEW_KEYS; i++) {
    await Bun.sleep(NEW_KEY_GAP_MS);
    pacedWarmTool.push(await post('warm', TOOL_INPUT));
  }
  await bare.stop(true);
  await Bun.sleep(NEW_KEY_GAP_MS);
  // New instances arrive back to back, each on a new key, without waiting for earlier replies.
  const newKeys = async (prefix: string, gapMs: number, input = 'hello'): Promise<number[]> => {
    const pending: Array<Promise<number>> = [];
    for (let i = 0; i < NEW_KEYS; i++) {
      pending.push(post(`${prefix}-${i}`, input));
      await Bun.sleep(gapMs);
    }
    return Promise.all(pending);
  };
  const fresh = await newKeys('new', NEW_KEY_GAP_MS);
  const pacedWarmMs = median(pacedWarm);
  // Idle after one turn each: the size an instance keeps while it waits for its next message.
  await Bun.sleep(BURST_PAUSE_MS);
  const rows = await fetch(`${orchestrator.apiUrl}/v1/processes`, { headers });
  const processes = ((await rows.json()) as { processes?: Array<{ instanceKey?: string; pid?: number | null }> }).processes ?? [];
  const pids = processes.filter((row) => row.instanceKey?.startsWith('new-') && row.pid).map((row) => row.pid as number);
  const rss: number[] = [];
  for (const pid of pids) rss.push((await processRssBytes(pid)) ?? 0);
  const cpu = pids.map((pid) => {
    const stat = procStat(pid);
    if (!stat) throw new Error(`new instance ${pid} exited before its CPU time was read`);
    return stat.cpuMs;
  });
  const fast = await newKeys('fast', FAST_NEW_KEY_GAP_MS);
  await Bun.sleep(BURST_PAUSE_MS);
  const freshTool = await newKeys('tool', NEW_KEY_GAP_MS, TOOL_INPUT);
  await orchestrator.stop();
  return {
    floorMs: median(floor),
    pacedFloorMs: median(pacedFloor),
    warmMs: median(warm),
    pacedWarmMs,
    newKeyMs: median(fresh),
    newKeyP95Ms: percentile(fresh, 95),
    pacedWarmToolMs: median(pacedWarmTool),
    newKeyToolMs: median(freshTool),
    fastNewKeyMs: median(fast),
    fastNewKeyP95Ms: percentile(fast, 95),
    newInstanceCpuMs: cpu.reduce((sum, ms) => sum + ms, 0) / Math.max(cpu.length, 1),
    afterTurnRssBytes: median(rss),
  };
}

const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-bench-daemon-'));
try {
  const rows: string[][] = [];
  const figures: Record<string, unknown> = { bench: 'daemon' };
  if (!ROUTING_ONLY) {
    const floor = await bareChildFloors(SPAWNS);
    const agent = await agentSpawns(join(stateRoot, 'spawns'));
    const rt = await interAgentRoundTrips({ stateRoot: join(stateRoot, 'rt'), bundlePath: BUNDLE, logger: silent });
    const { relay, steadyRelay } = rt;
    const http = await httpReplies(join(stateRoot, 'http'));
    const httpFloorMs = http.floorMs;
    const fsyncMs = fsyncFloorMs(join(stateRoot, 'fsync'));
    const pacedFsyncMs = fsyncFloorMs(join(stateRoot, 'fsync'), REPLY_GAP_MS);
    const noDisk = await httpReplies(join(stateRoot, 'http-never'), bundleWithFsync(BUNDLE, join(stateRoot, 'bundle-never'), 'never'), true);
    rows.push(
      ['spawn → ready, warm pool (default)', `${agent.warmMs.toFixed(1)} ms`, `${floor.spawnMs.toFixed(1)} ms bare`, `${(agent.warmMs / floor.spawnMs).toFixed(2)}×`, '≤ 2×'],
      ['spawn → ready, cold', `${agent.coldMs.toFixed(1)} ms`, `${floor.spawnMs.toFixed(1)} ms bare`, `${(agent.coldMs / floor.spawnMs).toFixed(2)}×`, '≤ 10×'],
      ['idle RSS, started (median)', `${(agent.rssBytes / 1048576).toFixed(1)} MB`, `${(floor.rssBytes / 1048576).toFixed(1)} MB bare`, `${(agent.rssBytes / floor.rssBytes).toFixed(2)}×`, '≤ 1.5×'],
      ['idle RSS, after one turn', `${(http.afterTurnRssBytes / 1048576).toFixed(1)} MB`, `${(floor.rssBytes / 1048576).toFixed(1)} MB bare`, `${(http.afterTurnRssBytes / floor.rssBytes).toFixed(2)}×`, '≤ 1.5×'],
      ['HTTP reply, warm instance', `${http.warmMs.toFixed(2)} ms`, `${httpFloorMs.toFixed(3)} ms bare HTTP RT`, `${(http.warmMs / httpFloorMs).toFixed(1)}×`, '≤ 1 ms'],
      ['  same, fsync: never', `${noDisk.warmMs.toFixed(2)} ms`, `${noDisk.floorMs.toFixed(3)} ms bare HTTP RT`, `${(noDisk.warmMs / noDisk.floorMs).toFixed(1)}×`, '≤ 1 ms'],
      ['  one append + fsync (state root)', `${fsyncMs.toFixed(2)} ms`, '', '', 'floor of a durable reply'],
      [`  the same, ${REPLY_GAP_MS} ms apart`, `${pacedFsyncMs.toFixed(2)} ms`, '', '', 'as a warm reply’s sync finds the disk'],
      [`HTTP reply, new keys at ${1000 / NEW_KEY_GAP_MS}/s`, `${http.newKeyMs.toFixed(1)} ms (p95 ${http.newKeyP95Ms.toFixed(1)})`, `${http.warmMs.toFixed(2)} ms warm reply`, `${(http.newKeyMs / http.warmMs).toFixed(1)}×`, '≤ 2× (back to back)'],
      ['  warm instance at the same rate', `${http.pacedWarmMs.toFixed(2)} ms`, `${http.pacedFloorMs.toFixed(3)} ms bare HTTP RT paced`, `${(http.pacedWarmMs / http.pacedFloorMs).toFixed(1)}×`, ''],
      ['  new key vs warm, same rate', `${http.newKeyMs.toFixed(1)} ms`, `${http.pacedWarmMs.toFixed(2)} ms warm paced`, `${(http.newKeyMs / http.pacedWarmMs).toFixed(1)}×`, '≤ 2× (like for like)'],
      ['  first message calls a tool: new key', `${http.newKeyToolMs.toFixed(1)} ms`, `${http.pacedWarmToolMs.toFixed(2)} ms warm paced`, `${(http.newKeyToolMs / http.pacedWarmToolMs).toFixed(1)}×`, '≤ 2× (like for like)'],
      [`  new keys at ${1000 / FAST_NEW_KEY_GAP_MS}/s`, `${http.fastNewKeyMs.toFixed(1)} ms (p95 ${http.fastNewKeyP95Ms.toFixed(1)})`, '', '', 'headroom past the target rate'],
      ['  CPU of a new instance (spawn → idle)', `${http.newInstanceCpuMs.toFixed(0)} ms`, '', '', 'what bounds new instances per second'],
      ['agents__request A→B→A', `${rt.medianMs.toFixed(2)} ms (p95 ${rt.p95Ms.toFixed(2)})`, `${relay.medianMs.toFixed(3)} ms raw 4-hop relay`, `${(rt.medianMs / relay.medianMs).toFixed(1)}×`, '≤ 1.5 ms'],
      ['  first after a 500 ms pause / the rest', `${rt.firstMs.toFixed(2)} / ${rt.restMs.toFixed(2)} ms`, `${relay.firstMs.toFixed(3)} / ${relay.restMs.toFixed(3)} ms`, '', ''],
      ['  of which B’s turn', `${rt.calleeTurnMs.toFixed(2)} ms`, '', '', ''],
      ['  a new pair’s first (A and B both new)', `${rt.newPairMs.toFixed(1)} ms`, '', '', 'a conversation’s first exchange'],
      [`  a long-lived pair, back to back (after ${LONG_PAIR_WARMUP})`, `${rt.longPairMs.toFixed(2)} ms`, `${steadyRelay.medianMs.toFixed(3)} ms relay back to back`, `${(rt.longPairMs / steadyRelay.medianMs).toFixed(1)}×`, '≤ 1.5 ms'],
    );
    Object.assign(figures, {
      idleAfterTurnRssBytes: http.afterTurnRssBytes,
      idleAfterTurnRssRatio: http.afterTurnRssBytes / floor.rssBytes,
      httpReplyWarmMs: http.warmMs,
      httpReplyWarmNoFsyncMs: noDisk.warmMs,
      fsyncFloorMs: fsyncMs,
      fsyncFloorPacedMs: pacedFsyncMs,
      httpReplyNewKeyMs: http.newKeyMs,
      httpReplyNewKeyP95Ms: http.newKeyP95Ms,
      httpReplyFastNewKeyMs: http.fastNewKeyMs,
      httpReplyFastNewKeyP95Ms: http.fastNewKeyP95Ms,
      newInstanceCpuMs: http.newInstanceCpuMs,
      httpReplyWarmPacedMs: http.pacedWarmMs,
      bareHttpRoundTripPacedMs: http.pacedFloorMs,
      newKeyToPacedWarmRatio: http.newKeyMs / http.pacedWarmMs,
      httpReplyNewKeyToolMs: http.newKeyToolMs,
      httpReplyWarmToolPacedMs: http.pacedWarmToolMs,
      newKeyToolToPacedWarmRatio: http.newKeyToolMs / http.pacedWarmToolMs,
      bareHttpRoundTripMs: httpFloorMs,
      spawnReadyWarmMs: agent.warmMs,
      spawnReadyColdMs: agent.coldMs,
      bareSpawnMs: floor.spawnMs,
      spawnRatio: agent.warmMs / floor.spawnMs,
      coldSpawnRatio: agent.coldMs / floor.spawnMs,
      idleRssBytes: agent.rssBytes,
      bareRssBytes: floor.rssBytes,
      rssRatio: agent.rssBytes / floor.rssBytes,
      interAgentRequestMedianMs: rt.medianMs,
      interAgentRequestP95Ms: rt.p95Ms,
      interAgentRequestFirstMs: rt.firstMs,
      interAgentRequestRestMs: rt.restMs,
      interAgentRequestNewPairMs: rt.newPairMs,
      interAgentRequestLongPairMs: rt.longPairMs,
      rawRelayRoundTripBackToBackMs: steadyRelay.medianMs,
      calleeTurnMedianMs: rt.calleeTurnMs,
      rawIpcRoundTripUs: floor.roundTripUs,
      rawRelayRoundTripMs: relay.medianMs,
      rawRelayRoundTripFirstMs: relay.firstMs,
      interAgentRequestRatio: rt.medianMs / relay.medianMs,
    });
  }
  const routingBench = { bundlePath: BUNDLE, logger: silent };
  const pair = await routing(routingBench, stateRoot, 1);
  const many = await routing(routingBench, stateRoot, MANY_SINKS);
  const percent = (r: { routedPerSec: number; relayPerSec: number }) => `${((r.routedPerSec / r.relayPerSec) * 100).toFixed(0)} %`;
  rows.push(
    ['routing throughput, 1 flood → 1 sink', `${Math.round(pair.routedPerSec)} ev/s`, `${Math.round(pair.relayPerSec)} ev/s raw relay`, percent(pair), '≥ 70 % (or ≥ 10,000 ev/s across many)'],
    [`routing throughput, 1 flood → ${MANY_SINKS} sinks`, `${Math.round(many.routedPerSec)} ev/s`, `${Math.round(many.relayPerSec)} ev/s raw relay`, percent(many), '≥ 10,000 ev/s or ≥ 70 %'],
  );
  Object.assign(figures, {
    loadAverage: loadavg(),
    routedEventsPerSec: pair.routedPerSec,
    rawRelayEventsPerSec: pair.relayPerSec,
    routingRatio: pair.routedPerSec / pair.relayPerSec,
    manyInstances: MANY_SINKS,
    routedManyEventsPerSec: many.routedPerSec,
    rawRelayManyEventsPerSec: many.relayPerSec,
    routingManyRatio: many.routedPerSec / many.relayPerSec,
  });
  console.log(loadAverageLine());
  printTable([['measure', 'goondan', 'floor', 'ratio', 'target'], ...rows]);
  console.log(JSON.stringify(figures));
} finally {
  rmSync(stateRoot, { recursive: true, force: true });
}
process.exit(0);
