/**
 * The routing rows of bench/daemon.ts: events/s flood → orchestrator → sink instances (validation,
 * durable inbox, delivery, acks) against a raw relay of the same children with the same fan-out.
 */
import { join } from 'node:path';
import { makeEvent, ORCHESTRATOR_SOURCE } from '../shared/ipc/control-events.ts';
import type { RootLogger } from '../shared/logger.ts';
import { OrchestratorCore } from '../orchestrator/daemon/orchestrator-core.ts';
import { loadSwarmConfig } from '../orchestrator/daemon/swarm-config.ts';
import { bunChildLauncher } from '../orchestrator/process/bun-child.ts';
import { DEFAULT_BACKOFF } from '../orchestrator/process/crash-backoff.ts';
import { fullOrSmoke } from './smoke.ts';
import { median } from './stats.ts';

const FLOOD = join(import.meta.dir, 'fixtures/flood-child.ts');
const FLOOD_EVENTS = fullOrSmoke(5000, 20);
const ROUTING_ROUNDS = fullOrSmoke(5, 1);
/** Sink instances (distinct instanceKeys, one process each) of the many-instance routing run. */
export const MANY_SINKS = fullOrSmoke(20, 2);
const MANY_SINK_EVENTS = fullOrSmoke(20_000, 20);

export interface RoutingBench {
  /** Its agent `alpha` lends the plan the flood and sink children are assigned. */
  bundlePath: string;
  logger: RootLogger;
}

/** Floor for routing: the same flood/sink children; the parent forwards by instanceKey, without checks or inbox. */
async function rawRelay(sinks: number, events: number): Promise<number> {
  const spawnChild = (args: string[], ipc: (message: RelayMessage) => void) =>
    Bun.spawn([process.execPath, FLOOD, ...args], { serialization: 'json', stdio: ['ignore', 'ignore', 'inherit'], ipc });
  return new Promise<number>((resolve) => {
    let acked = 0;
    let t0 = 0;
    let ready = 0;
    const onReady = (message: RelayMessage): boolean => {
      if (message.payload?.type !== 'runtime.ready') return false;
      if (++ready === sinks + 1) {
        t0 = performance.now();
        flood.send({ type: 'event', from: 'orchestrator', to: 'flood', payload: makeEvent('bench.go', ORCHESTRATOR_SOURCE) });
      }
      return true;
    };
    const bySinkKey = new Map<string, ReturnType<typeof spawnChild>>();
    for (let i = 0; i < sinks; i++) {
      const key = `flood/sink-${i}`;
      bySinkKey.set(
        key,
        spawnChild(['sink', String(events), key], (message) => {
          if (onReady(message)) return;
          if (message.payload?.type === 'runtime.turn.completed' && ++acked === events) {
            const perSec = events / ((performance.now() - t0) / 1000);
            for (const sink of bySinkKey.values()) sink.kill();
            flood.kill();
            resolve(perSec);
          }
        }),
      );
    }
    const flood = spawnChild(['flood', String(events), 'flood', String(sinks)], (message) => {
      if (onReady(message)) return;
      const sink = bySinkKey.get(message.payload?.instanceKey ?? '');
      if (sink && !sink.killed && acked < events) sink.send(message);
    });
  });
}

interface RelayMessage {
  type?: string;
  payload?: { type?: string; instanceKey?: string };
}

/** flood → orchestrator core (validate, route, inbox append, deliver, ack) → `sinks` sink instances. */
async function routedThroughput(bench: RoutingBench, stateRoot: string, sinks: number, events: number): Promise<number> {
  const config = await loadSwarmConfig({ bundlePath: bench.bundlePath, processEnv: process.env });
  const swarm = { ...config.swarm, name: 'bench', workspaceId: 'bench', entryAgent: 'sink', agents: ['flood', 'sink'] };
  const alpha = config.agents.get('alpha');
  if (!alpha) throw new Error('the bench bundle has no agent alpha');
  let acked = 0;
  let done: (perSec: number) => void = () => {};
  let t0 = 0;
  const core = new OrchestratorCore({
    config: () => ({
      swarm,
      connections: [],
      spawnSpec: (_kind, name, key) => ({
        launch: { command: [process.execPath, FLOOD, name, String(events), key, String(sinks)], env: process.env, stdin: 'ignore' },
        assignment: { role: 'agent', agent: name, instanceKey: key, stateRoot, agentPlan: { ...alpha, name }, swarmPlan: swarm },
      }),
      agentLaunchOptions: () => ({ command: [process.execPath, FLOOD, 'pool', '0'], env: process.env, stdin: 'ignore', output: 'inherit' }),
      modelOf: () => alpha.model,
    }),
    stateRoot,
    launcher: bunChildLauncher(() => {}),
    logger: bench.logger,
    backoff: DEFAULT_BACKOFF,
    output: 'inherit',
    warmPoolSize: 0,
    httpApprovals: false,
    promptInteractive: () => false,
  });
  const finished = new Promise<number>((resolve) => {
    done = resolve;
  });
  // Count acks as the router sees them (the core's own handler runs first).
  const handle = core.router.handle.bind(core.router);
  core.router.handle = (message, proc) => {
    handle(message, proc);
    if (message.type === 'event' && message.payload.type === 'runtime.turn.completed' && ++acked === events) done(events / ((performance.now() - t0) / 1000));
  };
  // Every sink instance is started before the clock runs: this measures routing, not spawning.
  const children = Array.from({ length: sinks }, (_, i) => core.supervisor.ensure('agent', 'sink', `flood/sink-${i}`));
  const flood = core.supervisor.ensure('agent', 'flood', 'flood');
  children.push(flood);
  while (!children.every((child) => child.ready)) await Bun.sleep(1);
  t0 = performance.now();
  flood.send({ type: 'event', from: 'orchestrator', to: 'flood', payload: makeEvent('bench.go', ORCHESTRATOR_SOURCE) });
  const perSec = await finished;
  await core.stop(1_000);
  return perSec;
}

/** Routed vs raw relay, interleaved (the machine is shared and noisy), medians of ROUTING_ROUNDS. */
export async function routing(bench: RoutingBench, stateRoot: string, sinks: number): Promise<{ routedPerSec: number; relayPerSec: number }> {
  // Enough events per sink that a run is not mostly its start and end.
  const events = sinks === 1 ? FLOOD_EVENTS : MANY_SINK_EVENTS;
  const relays: number[] = [];
  const routes: number[] = [];
  for (let round = 0; round < ROUTING_ROUNDS; round++) {
    relays.push(await rawRelay(sinks, events));
    routes.push(await routedThroughput(bench, join(stateRoot, `routing-${sinks}-${round}`), sinks, events));
  }
  return { routedPerSec: median(routes), relayPerSec: median(relays) };
}
