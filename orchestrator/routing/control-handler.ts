/**
 * Control traffic from children (`runtime.*` events, ARCHITECTURE §2), each validated against its
 * type's schema (shared/ipc/control-protocol.ts): turn acknowledgements (delivery), runtime events
 * (SSE, metrics), spawn/list/catalog requests, tool approvals, self-restart. None of it ever
 * becomes a turn. The start-up protocol (ready/started/failed) is the managed process's own.
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { type ControlMessage, type ControlPayloads, approvalDisplayOf, parseControl } from '../../shared/ipc/control-protocol.ts';
import { type ControlRequestType, type ControlResults, resultJson } from '../../shared/ipc/control-results.ts';
import { validateRuntimeEvent } from '../../shared/ipc/ipc-schemas.ts';
import { type ReplyOutcome, failureOutcome, makeReplyEvent, CONTROL_RESPONSE_TYPE } from '../../shared/ipc/reply-events.ts';
import { runtimeError } from '../../shared/errors/index.ts';
import { validateInstanceKey } from '../../shared/instance-key.ts';
import { inScope, interAgentRefusal } from '../../shared/inter-agent-scope.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { AgentInstanceInfo } from '../../shared/types/tools.ts';
import type { ApprovalBroker } from '../approvals/approval-broker.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { EventLedger } from '../delivery/event-ledger.ts';
import type { Metrics } from '../http/metrics.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { Supervisor } from '../process/supervisor.ts';
import type { ModelCalls } from '../usage/model-calls.ts';
import type { InstanceOwners } from './instance-owners.ts';
import { targetOf } from './default-target.ts';

/** An approval nobody answers is denied after this long unless the request says otherwise. */
const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

export interface ControlHandlerDeps {
  swarm(): SwarmPlan;
  isKnownAgent(name: string): boolean;
  /** Auto-spawn of the routing layer (spawn requests use the same path as events). */
  ensure(target: AgentId): ManagedProcess;
  supervisor: Supervisor;
  delivery: Delivery;
  metrics: Metrics;
  runtimeEvents: RuntimeEventBus;
  approvals: ApprovalBroker;
  modelCalls: ModelCalls;
  /** States and replies of events accepted from outside (issue 10). */
  ledger?: EventLedger;
  owners: InstanceOwners;
  logger: RootLogger;
  onRestartRequested(proc: ManagedProcess, reason: string): void;
  /** Cluster mode: store the instance's state in the cluster (`runtime.state.sync`). */
  syncState?(proc: ManagedProcess): Promise<void>;
  /** Cluster mode: resolves once the connector may hold its provider connection alone (`runtime.connection.exclusive`). */
  exclusiveConnection?(proc: ManagedProcess): Promise<void>;
  /** `eventId`'s turn is on disk (its ack follows the agent's fsync): replies sent before it may go on. */
  onTurnSynced?(proc: ManagedProcess, eventId: string): void;
  /** `eventId`'s turn in `from` answered with `reply`: its outcome is recorded (this node's ledger, the accepting node's). */
  onEventAnswered(from: ManagedProcess, eventId: string, reply: ReplyOutcome): void;
}

export class ControlHandler {
  constructor(private readonly deps: ControlHandlerDeps) {}

  handle(event: AgentEvent, from: ManagedProcess): void {
    const parsed = parseControl(event);
    if (!parsed.ok) {
      this.deps.metrics.malformedMessages.inc({ source: 'ipc' });
      this.deps.logger.warn({ process: from.key, type: event.type, problems: parsed.problems }, 'dropped a malformed control event');
      return;
    }
    this.dispatch(parsed.message, from);
  }

  private dispatch(control: ControlMessage, from: ManagedProcess): void {
    switch (control.type) {
      case 'runtime.turn.started':
        this.deps.delivery.markStarted(from, control.payload.eventId);
        this.deps.ledger?.running(control.payload.eventId);
        // A turn that started as the shutdown went out is drained, not a return to work.
        if (from.status !== 'draining') from.status = 'processing';
        return;
      case 'runtime.turn.completed':
        from.touch();
        this.deps.delivery.ack(from, control.payload.eventId);
        this.deps.onTurnSynced?.(from, control.payload.eventId);
        if (control.payload.reply) this.deps.onEventAnswered(from, control.payload.eventId, control.payload.reply);
        from.consecutiveCrashes = 0; // a completed turn resets the crash count (SPEC.md §2.2)
        if (from.status !== 'draining') from.status = this.deps.delivery.pendingCount(from.id) > 0 ? 'processing' : 'idle';
        if (from.status === 'idle') this.deps.supervisor.nudge();
        return;
      case 'runtime.reply.stored':
        this.deps.delivery.ack(from, control.payload.eventId);
        return;
      case 'runtime.observe':
        for (const record of control.payload.events) this.observe(record, from);
        return;
      case 'runtime.spawn':
        this.spawn(control.event, control.payload, from);
        return;
      case 'runtime.list':
        this.reply(from, control.event, 'runtime.list', { agents: this.listInstances(from, control.payload.includeAll) });
        return;
      case 'runtime.catalog': {
        const swarm = this.deps.swarm();
        this.reply(from, control.event, 'runtime.catalog', {
          swarmName: swarm.name,
          entryAgent: swarm.entryAgent,
          selfAgent: from.name,
          availableAgents: swarm.agents,
          callableAgents: swarm.agents.filter((a) => a !== from.name),
        });
        return;
      }
      case 'runtime.approval.request': {
        const request = control.payload;
        this.deps.approvals.open(
          {
            toolName: request.toolName,
            toolCallId: request.toolCallId,
            args: request.args,
            reason: request.reason,
            agent: from.name,
            instanceKey: from.instanceKey,
            processKey: from.key,
            ...(request.eventId !== undefined ? { eventId: request.eventId } : {}),
            // What a person reads first (issue 17): the call's summary, display name, icon and the tool's preview.
            ...approvalDisplayOf(request),
          },
          request.timeoutMs > 0 ? request.timeoutMs : DEFAULT_APPROVAL_TIMEOUT_MS,
          (decision) => this.reply(from, control.event, 'runtime.approval.request', decision),
        );
        return;
      }
      case 'runtime.approval.decision': {
        // A decision is a person's, brought by a connector (a chat button, the terminal). An agent
        // process deciding would be an agent approving its own (or another's) tool call.
        if (from.kind !== 'connector') {
          this.deps.metrics.malformedMessages.inc({ source: 'ipc' });
          this.deps.logger.warn({ process: from.key, approvalId: control.payload.id }, 'refused an approval decision sent by an agent process; only connectors bring decisions');
          return;
        }
        const { id, approved, scope, reason } = control.payload;
        const decided = this.deps.approvals.decide(id, { approved, scope, decidedBy: from.name, reason: reason ?? '' });
        if (!decided) this.deps.logger.info({ approvalId: id, from: from.key }, 'decision for an approval that is no longer pending');
        return;
      }
      case 'runtime.model.admit': {
        const request = control.event;
        if (from.kind !== 'agent') {
          this.answer(from, request, failureOutcome(runtimeError('INVALID_REQUEST', 'only agent processes call models')));
          return;
        }
        void this.deps.modelCalls.admit(from, control.payload).then((admission) => {
          if (admission.ok) this.reply(from, request, 'runtime.model.admit', admission.value);
          else this.answer(from, request, failureOutcome(admission.error));
        });
        return;
      }
      case 'runtime.model.release':
        this.deps.modelCalls.release(from, control.payload);
        return;
      case 'runtime.model.throttled':
        this.deps.modelCalls.throttled(from, control.payload);
        return;
      case 'runtime.restart':
        this.deps.onRestartRequested(from, control.payload.reason);
        return;
      case 'runtime.connection.exclusive': {
        const request = control.event;
        if (from.kind !== 'connector') {
          this.answer(from, request, failureOutcome(runtimeError('INVALID_REQUEST', 'only connector processes hold provider connections')));
          return;
        }
        // A single node is the only one there is: exclusive at once.
        void (this.deps.exclusiveConnection?.(from) ?? Promise.resolve()).then(() => this.reply(from, request, 'runtime.connection.exclusive', {}));
        return;
      }
      case 'runtime.state.sync': {
        const request = control.event;
        const stored = this.deps.syncState?.(from) ?? Promise.resolve();
        stored.then(
          () => this.reply(from, request, 'runtime.state.sync', {}),
          (error: unknown) => this.answer(from, request, failureOutcome(runtimeError('CLUSTER_UNAVAILABLE', `the instance state could not be stored in the cluster: ${(error as Error).message}`))),
        );
        return;
      }
      default:
        this.deps.logger.warn({ process: from.key, type: control.type }, 'control event not expected from a child; dropped');
    }
  }

  private observe(record: ControlPayloads['runtime.observe']['events'][number], from: ManagedProcess): void {
    const result = validateRuntimeEvent(record);
    if (!result.ok) {
      this.deps.metrics.malformedMessages.inc({ source: 'ipc' });
      this.deps.logger.warn({ process: from.key, problems: result.problems }, 'dropped a malformed runtime event');
      return;
    }
    // A process reports its own runs only: another agent's name would put events (text included)
    // into traces streamed to other callers, and usage on their account.
    if (from.kind !== 'agent' || result.value.agentName !== from.name || result.value.instanceKey !== from.instanceKey) {
      this.deps.metrics.malformedMessages.inc({ source: 'ipc' });
      this.deps.logger.warn({ process: from.key, agentName: result.value.agentName, instanceKey: result.value.instanceKey }, 'dropped a runtime event a process sent in another instance\'s name');
      return;
    }
    this.deps.metrics.observe(result.value);
    this.deps.modelCalls.observe(result.value);
    this.deps.runtimeEvents.publish(result.value);
  }

  private spawn(event: AgentEvent, request: ControlPayloads['runtime.spawn'], from: ManagedProcess): void {
    const target = targetOf(request.target, request.instanceKey, from.id);
    const badKey = validateInstanceKey(target.instanceKey);
    if (badKey) {
      this.answer(from, event, failureOutcome(runtimeError('INVALID_REQUEST', badKey)));
      return;
    }
    if (!this.deps.isKnownAgent(target.agent)) {
      this.answer(from, event, failureOutcome(runtimeError('AGENT_NOT_FOUND', `agent '${target.agent}' is not part of swarm '${this.deps.swarm().name}'`)));
      return;
    }
    const outOfScope = interAgentRefusal(this.deps.swarm().interAgent, { agent: from.name, instanceKey: from.instanceKey }, target.instanceKey);
    if (outOfScope) {
      this.answer(from, event, failureOutcome(outOfScope));
      return;
    }
    const existed = this.deps.supervisor.get('agent', target.agent, target.instanceKey)?.alive === true;
    this.deps.owners.record(target, { ownerAgent: from.name, ownerInstanceKey: from.instanceKey, ...(request.cwd !== undefined ? { cwd: request.cwd } : {}) });
    this.deps.ensure(target);
    this.reply(from, event, 'runtime.spawn', { target: target.agent, instanceKey: target.instanceKey, spawned: !existed, ...(request.cwd !== undefined ? { cwd: request.cwd } : {}) });
  }

  private listInstances(from: ManagedProcess, includeAll: boolean): AgentInstanceInfo[] {
    const rows: AgentInstanceInfo[] = [];
    for (const proc of this.deps.supervisor.list()) {
      if (proc.kind !== 'agent') continue;
      const owner = this.deps.owners.get(proc.id);
      const mine = owner?.ownerAgent === from.name && owner.ownerInstanceKey === from.instanceKey;
      if (!includeAll && !mine) continue;
      // Other tenants' instance keys (chat ids, user ids) are not shown to an agent that may not reach them.
      if (!inScope(this.deps.swarm().interAgent, from.instanceKey, proc.instanceKey)) continue;
      rows.push({
        target: proc.name,
        instanceKey: proc.instanceKey,
        status: proc.status,
        createdAt: owner?.createdAt ?? proc.startedAt ?? '',
        ...(owner?.ownerAgent ? { ownerAgent: owner.ownerAgent } : {}),
        ...(owner?.ownerInstanceKey ? { ownerInstanceKey: owner.ownerInstanceKey } : {}),
        ...(owner?.cwd ? { cwd: owner.cwd } : {}),
      });
    }
    return rows;
  }

  private reply<K extends ControlRequestType>(to: ManagedProcess, request: AgentEvent, _type: K, result: ControlResults[K]): void {
    this.answer(to, request, { status: 'ok', output: '', result: resultJson(result) });
  }

  private answer(to: ManagedProcess, request: AgentEvent, outcome: ReplyOutcome): void {
    if (!request.replyTo) return;
    to.send({ type: 'event', from: ORCHESTRATOR, to: to.name, payload: makeReplyEvent(request.replyTo.correlationId, ORCHESTRATOR_SOURCE, outcome, CONTROL_RESPONSE_TYPE) });
  }
}
