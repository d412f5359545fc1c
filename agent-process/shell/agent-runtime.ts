/**
 * What an agent process becomes once assigned (ARCHITECTURE §4): the engine for its plan, the
 * FIFO of turns, the inter-agent runtime and approvals over IPC. Each event's turn is announced
 * (`runtime.turn.started`), answered (`replyTo`, also on failure) and acknowledged after it was
 * folded and synced (`runtime.turn.completed`); a self-restart request follows the turn. Under
 * `fsync: batch` an answer to another agent leaves before the sync, marked `unsynced`; replies
 * this agent got so marked hold back its own answer, ack and tool effects until
 * `runtime.reply.synced` (orchestrator/routing/unsynced-replies.ts).
 */
import type { ChildRuntime, ShellChannel } from '../../shared/child/child-shell.ts';
import { GoondanError, runtimeError } from '../../shared/errors/index.ts';
import type { Assignment, TurnReply } from '../../shared/ipc/control-protocol.ts';
import { makeReplyEvent } from '../../shared/ipc/reply-events.ts';
import { createDeferredLogger } from '../../shared/deferred-logger.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent, EventSource } from '../../shared/types/events.ts';
import { isJsonObject } from '../../shared/types/json.ts';
import type { TurnResult } from '../../shared/types/turns.ts';
import { type AgentEngineOptions, createAgentEngine } from '../engine/agent-engine.ts';
import type { TurnHooks } from '../engine/turn-lifecycle.ts';
import { startAgentTelemetry } from '../observability/agent-telemetry.ts';
import { IpcAgentsRuntime } from './ipc-agents-runtime.ts';
import { createIpcApprovals } from './ipc-approvals.ts';
import { ipcStateSync } from './ipc-state-sync.ts';
import { createIpcModelGate, needsModelGate } from './ipc-model-gate.ts';
import { TurnQueue } from './turn-queue.ts';
import { UnsyncedDependencies } from './unsynced-dependencies.ts';
import { ORCHESTRATOR } from '../../shared/ipc/control-events.ts';

/** How a warm spare's rehearsal starts an agent (agent-rehearsal.ts); an assignment takes the defaults. */
export interface AgentStartOptions {
  /** Instead of the process's `agent` logger. */
  logger?: RootLogger;
  /** false: no spans are exported, whatever the environment says. */
  telemetry?: boolean;
  /** Every tool call is refused with this reason before its handler runs, but those of `ownTools`. */
  refuseToolCalls?: string;
  /** Tools of the process itself (a rehearsal's no-op, rehearsal-tool.ts), added to the plan's. */
  ownTools?: AgentEngineOptions['ownTools'];
}

export async function startAgent(assignment: Assignment, channel: ShellChannel, options: AgentStartOptions = {}): Promise<ChildRuntime> {
  if (assignment.role !== 'agent') {
    throw new GoondanError('E_ASSIGNMENT_ROLE', 'system', `an agent process was assigned a ${assignment.role}`, { suggestion: 'this is a goondan bug; report it' });
  }
  const { agent: agentName, instanceKey } = assignment;
  // The engine adds agent and instanceKey to its own lines; binding them here too would repeat the keys.
  const rootLogger = options.logger ?? createDeferredLogger({ name: 'agent' });
  const logger = rootLogger.child({ agent: agentName, instanceKey });
  const self: EventSource = { kind: 'agent', name: agentName, instanceKey };
  const unsynced = new UnsyncedDependencies((correlationId) =>
    logger.error({ correlationId }, 'no word that the reply to this request reached its callee’s disk; going on without it (a goondan bug)'),
  );
  const agents = new IpcAgentsRuntime({ channel, self, agentName, instanceKey, swarmAgents: () => assignment.swarmPlan.agents, interAgent: () => assignment.swarmPlan.interAgent, unsynced });
  // Under `fsync: batch` an answer to another agent leaves before this turn's sync (unsynced-replies.ts).
  const answersBeforeSync = assignment.swarmPlan.durability.fsync === 'batch';
  const stateSync = assignment.replicateState ? ipcStateSync({ channel, self }) : undefined;
  let restartReason: string | undefined;
  const approvals = createIpcApprovals({ channel, self }, () => agents.currentEventId);
  const telemetry =
    options.telemetry === false
      ? undefined
      : await startAgentTelemetry(process.env, { agent: agentName, instanceKey, model: assignment.agentPlan.model, swarm: assignment.swarmPlan.name }, logger);
  const engine = await createAgentEngine({
    plan: assignment.agentPlan,
    swarm: assignment.swarmPlan,
    instanceKey,
    stateRoot: assignment.stateRoot,
    logger: rootLogger,
    agentsRuntime: agents,
    approvals,
    ...(needsModelGate(assignment.agentPlan, assignment.swarmPlan) ? { modelGate: createIpcModelGate({ channel, self }) } : {}),
    beforeToolEffect: async () => {
      // A handler acting on the world may act on what such a reply said.
      await unsynced.settled();
      await stateSync?.();
    },
    env: process.env,
    onRuntimeEvent: (event) => {
      // Runtime events are plain JSON records; narrow instead of copying (this runs ~5 times a turn).
      const record: unknown = event;
      if (isJsonObject(record)) channel.observe(record);
      telemetry?.observe(event);
    },
    onRestartRequested: (reason) => {
      restartReason = reason;
    },
    ...(options.ownTools ? { ownTools: options.ownTools } : {}),
  });
  agents.onAsyncReply((reply) => engine.deliverAsyncReply(reply));
  if (options.refuseToolCalls !== undefined) engine.abortToolCalls(options.refuseToolCalls, new Set(options.ownTools?.map((tool) => tool.item.name)));

  const queue = new TurnQueue(async (event) => {
    channel.control('runtime.turn.started', { eventId: event.id });
    agents.setCurrentEvent(event);
    let result: TurnResult | undefined;
    let answered = false;
    const hooks: TurnHooks = {
      beforeSync: (done) => {
        if (!answersBeforeSync || !asksAnAgent(event) || unsynced.count > 0) return;
        answer(channel, self, event, turnReply(event, done), done, true);
        answered = true;
      },
    };
    try {
      result = await engine.runTurn(event, hooks);
    } catch (error) {
      // runTurn reports failures in its result; a throw here is a defect, still answered below.
      logger.error({ err: error, eventId: event.id }, 'runTurn threw');
    } finally {
      agents.setCurrentEvent(undefined);
    }
    // The answer and the ack may rest on replies whose callees have not synced yet.
    await unsynced.settled();
    const reply = turnReply(event, result);
    if (!answered) answer(channel, self, event, reply, result);
    channel.control('runtime.turn.completed', { eventId: event.id, ...(result ? { turnId: result.turnId } : {}), reply });
    if (restartReason !== undefined) {
      channel.control('runtime.restart', { reason: restartReason });
      restartReason = undefined;
    }
  });

  return {
    name: agentName,
    source: self,
    logger,
    ackPayload: { instanceKey },
    onEvent: (event) => queue.push(event),
    onControl(control) {
      if (control.type === 'runtime.reply.synced') unsynced.synced(control.payload.correlationId);
    },
    onUnclaimedReply(event) {
      const reply = agents.keptAsyncReply(event);
      if (!reply) return false;
      engine.deliverAsyncReply(reply);
      channel.control('runtime.reply.stored', { eventId: event.id });
      return true;
    },
    async drain(reason, gracePeriodMs) {
      if (reason === 'passivate' && onlyWaits(approvals.waiting, agents.syncRequestsWaiting, engine.runningToolCalls())) {
        // Stop here, as a crash would: the unacked event and the durable records (approval,
        // tool-call journal) resume the turn in the next process, which the answer starts.
        logger.info({ approvals: approvals.waiting, requests: agents.syncRequestsWaiting }, 'passivated while the turn waits; it resumes when the answer comes');
        await telemetry?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'exporting the last spans failed'));
        return;
      }
      // SPEC.md §2.3: the current turn may finish within the grace period, but no tool process may
      // outlive this agent (issue 9): running tool calls are cancelled shortly before the deadline.
      const abortTimer = setTimeout(
        () => engine.abortToolCalls(`the agent is shutting down (${reason}) and its grace period is ending`),
        Math.max(0, gracePeriodMs - TOOL_ABORT_MARGIN_MS),
      );
      await queue.drain();
      clearTimeout(abortTimer);
      await engine.close();
      await telemetry?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'exporting the last spans failed'));
    },
  };
}

/**
 * The turn does nothing but wait for a human's decision or another agent's reply: every running
 * tool handler is an agents__request waiting for its reply (an approval is asked before the handler).
 */
function onlyWaits(approvalsWaiting: number, requestsWaiting: number, runningHandlers: number): boolean {
  return approvalsWaiting + requestsWaiting > 0 && runningHandlers === requestsWaiting;
}

/** Before the orchestrator's SIGKILL: time for a tool's process group to take SIGTERM, then SIGKILL, and for the turn to fold. */
const TOOL_ABORT_MARGIN_MS = 3000;

/** What the turn answered (also when it failed, SPEC.md §9.4 gap): the reply to `replyTo` and the ack's record. */
function turnReply(event: AgentEvent, result: TurnResult | undefined): TurnReply {
  const ok = result !== undefined && result.finishReason !== 'error';
  return {
    status: ok ? 'ok' : 'error',
    output: result?.responseText ?? '',
    ...(result ? { turnId: result.turnId, traceId: result.traceId } : event.traceId ? { traceId: event.traceId } : {}),
    ...(ok ? {} : { error: result?.error ?? runtimeError('AGENT_TURN_FAILED', 'the turn failed') }),
  };
}

/** `unsynced`: sent before the turn's sync; the orchestrator tells the requester when it is on disk. */
function answer(channel: ShellChannel, self: EventSource, event: AgentEvent, reply: TurnReply, result: TurnResult | undefined, unsynced = false): void {
  if (!event.replyTo) return;
  // Token usage travels to the caller only (the ack's record has no use for it).
  const usage = result?.tokenUsage ? { usage: result.tokenUsage } : {};
  const replyEvent = makeReplyEvent(event.replyTo.correlationId, self, { ...reply, ...usage, ...(unsynced ? { unsynced: true } : {}) });
  // An answer to another agent goes ahead of the turn's last runtime events (see ShellChannel.post).
  channel.post(event.replyTo.target, replyEvent, asksAnAgent(event));
}

/** A request from another agent (HTTP callers and connectors are answered once the turn is on disk). */
function asksAnAgent(event: AgentEvent): boolean {
  return event.replyTo !== undefined && event.replyTo.target !== ORCHESTRATOR && event.source.kind === 'agent';
}

