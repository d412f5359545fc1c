/**
 * AgentProcess entry (ARCHITECTURE §4): one Bun process per (agent, instanceKey), started by the
 * orchestrator with `--bundle-dir --agent-name --instance-key --state-root [--swarm]`, or with
 * `--pool` as a warm process that is assigned its identity later (shell/agent-startup.ts).
 * It builds the engine, announces `runtime.ready`, runs queued events one turn at a time, answers
 * `replyTo`, acknowledges each event after its turn is folded, and drains on `shutdown`.
 */
import { CONTROL, ORCHESTRATOR, controlEvent, inReplyToOf, isControlEvent } from '../shared/ipc/control-events.ts';
import { createParentChannelTransport } from '../shared/ipc/parent-channel-transport.ts';
import { makeReplyEvent } from '../shared/ipc/reply-events.ts';
import { createLogger } from '../shared/logger.ts';
import type { AgentEvent, EventSource } from '../shared/types/events.ts';
import { isJsonObject } from '../shared/types/json.ts';
import type { TurnResult } from '../shared/types/turns.ts';
import { createAgentEngine } from './engine/agent-engine.ts';
import { agentStartup } from './shell/agent-startup.ts';
import { IpcAgentsRuntime } from './shell/ipc-agents-runtime.ts';
import { createIpcApprovals } from './shell/ipc-approvals.ts';
import { PendingReplies } from './shell/pending-replies.ts';
import { TurnQueue } from './shell/turn-queue.ts';

// ESM evaluates every static import first, so this is the module-loading share of start-up.
const modulesLoadedMs = performance.now();
let logger = createLogger({ name: 'agent' });
const transport = createParentChannelTransport((problems) => logger.warn({ problems }, 'dropped a malformed IPC message'));
const replies = new PendingReplies();

// Without the orchestrator nobody can receive replies or acks: exit; unfolded state is recovered on the next start.
transport.onDisconnect(() => {
  replies.failAll('the orchestrator is gone');
  logger.warn('IPC channel closed (orchestrator gone); exiting');
  process.exit(0);
});
// A terminal Ctrl-C is the orchestrator's to handle; it drains us with a `shutdown` message.
process.on('SIGINT', () => {});
// A SIGTERM promises no grace period: running tool calls (and their processes) end now.
process.on('SIGTERM', () => void drainAndExit('SIGTERM', 0));
process.on('uncaughtException', (error) => {
  logger.fatal({ err: error }, 'uncaught exception; exiting so the orchestrator restarts this agent');
  process.exit(1);
});
process.on('unhandledRejection', (reason) => {
  logger.fatal({ err: reason }, 'unhandled rejection; exiting so the orchestrator restarts this agent');
  process.exit(1);
});

// A shutdown can arrive while this process still starts (or waits in the warm pool): honour it then too.
transport.onMessage((message) => {
  if (message.type === 'shutdown') void drainAndExit(message.payload.reason, message.payload.gracePeriodMs);
});

const startup = await agentStartup(process.argv.slice(2), process.env, transport).catch((error: unknown) => {
  logger.fatal({ err: error }, 'cannot build the agent plan');
  process.exit(1);
});
const startedAt = performance.now();
const { args, plans } = startup;
logger = createLogger({ name: 'agent', base: { agent: args.agentName, instanceKey: args.instanceKey } });
const self: EventSource = { kind: 'agent', name: args.agentName, instanceKey: args.instanceKey };
const sendControl = (type: string, metadata: Parameters<typeof controlEvent>[2] = {}) =>
  transport.send({ type: 'event', from: args.agentName, to: ORCHESTRATOR, payload: controlEvent(type, self, metadata) });

const channel = { transport, replies, agentName: args.agentName, instanceKey: args.instanceKey };
const agents = new IpcAgentsRuntime({ ...channel, swarmAgents: () => plans.swarm.agents });

let restartReason: string | undefined;
const engine = await createAgentEngine({
  plan: plans.agent,
  swarm: plans.swarm,
  instanceKey: args.instanceKey,
  stateRoot: args.stateRoot,
  logger,
  agentsRuntime: agents,
  approvals: createIpcApprovals(channel),
  env: process.env,
  onRuntimeEvent: (event) => {
    // Runtime events are plain JSON records; narrow instead of copying (this runs ~5 times a turn).
    const record: unknown = event;
    if (isJsonObject(record)) sendControl(CONTROL.observe, { event: record });
  },
  onRestartRequested: (reason) => {
    restartReason = reason;
  },
}).catch((error: unknown) => {
  logger.fatal({ err: error }, 'cannot start the agent engine');
  process.exit(1);
});
agents.onAsyncReply((reply) => engine.deliverAsyncReply(reply));
const engineReadyMs = performance.now();

const queue = new TurnQueue(async (event) => {
  sendControl(CONTROL.turnStarted, { eventId: event.id });
  agents.setCurrentEvent(event);
  let result: TurnResult | undefined;
  try {
    result = await engine.runTurn(event);
  } catch (error) {
    // runTurn reports failures in its result; a throw here is a defect, still answered below.
    logger.error({ err: error, eventId: event.id }, 'runTurn threw');
  } finally {
    agents.setCurrentEvent(undefined);
  }
  answer(event, result);
  sendControl(CONTROL.turnCompleted, { eventId: event.id, ...(result ? { turnId: result.turnId } : {}) });
  if (restartReason !== undefined) {
    sendControl(CONTROL.restart, { reason: restartReason });
    restartReason = undefined;
  }
});

/** The callee answers `replyTo` when its turn ends, also when it failed (SPEC.md §9.4 gap). */
function answer(event: AgentEvent, result: TurnResult | undefined): void {
  if (!event.replyTo) return;
  const ok = result !== undefined && result.finishReason !== 'error';
  const reply = makeReplyEvent(event.replyTo.correlationId, self, {
    status: ok ? 'ok' : 'error',
    output: result?.responseText ?? '',
    ...(result ? { turnId: result.turnId, traceId: result.traceId } : event.traceId ? { traceId: event.traceId } : {}),
    ...(ok ? {} : { errorCode: 'AGENT_TURN_FAILED', errorMessage: result?.error?.message ?? 'the turn failed' }),
  });
  transport.send({ type: 'event', from: args.agentName, to: event.replyTo.target, payload: reply });
}

/** Before the orchestrator's SIGKILL: time for a tool's process group to take SIGTERM, then SIGKILL, and for the turn to fold. */
const TOOL_ABORT_MARGIN_MS = 3000;

let draining = false;
let serving = false;
async function drainAndExit(reason: string, gracePeriodMs: number): Promise<void> {
  if (draining) return;
  draining = true;
  // Still waiting in the warm pool, or still starting: nothing to drain.
  if (!serving) process.exit(0);
  logger.info({ reason, queued: queue.length, gracePeriodMs }, 'draining');
  // SPEC.md §2.3: the current turn may finish within the grace period, but no tool process may
  // outlive this agent (issue 9): running tool calls are cancelled shortly before the deadline.
  const abortTimer = setTimeout(
    () => engine.abortToolCalls(`the agent is shutting down (${reason}) and its grace period is ending`),
    Math.max(0, gracePeriodMs - TOOL_ABORT_MARGIN_MS),
  );
  await queue.drain();
  clearTimeout(abortTimer);
  await engine.close();
  transport.send({ type: 'shutdown_ack', from: args.agentName, to: ORCHESTRATOR, payload: { instanceKey: args.instanceKey } });
  // Give the IPC write a moment to flush before the process goes away.
  setTimeout(() => process.exit(0), 20);
}

transport.onMessage((message) => {
  if (message.type !== 'event') return;
  const event = message.payload;
  if (inReplyToOf(event)) {
    if (!replies.handleResponse(event)) logger.debug({ eventId: event.id }, 'reply for an unknown request; dropped');
    return;
  }
  if (isControlEvent(event)) {
    if (event.type === CONTROL.error) logger.warn({ ...event.metadata }, 'the orchestrator could not route a message');
    return;
  }
  queue.push(event);
});

serving = true;
sendControl(CONTROL.ready, { pid: process.pid });
logger.info(
  {
    pooled: startup.pooled,
    startupMs: startup.pooled
      ? { assignedToReady: Math.round(engineReadyMs - startedAt) }
      : { modules: Math.round(modulesLoadedMs), engine: Math.round(engineReadyMs - startedAt), total: Math.round(performance.now()) },
  },
  'agent ready',
);
