/**
 * Control traffic from children (`runtime.*` events, ARCHITECTURE §2): readiness and turn
 * acknowledgements (delivery), runtime events (SSE, metrics), spawn/list/catalog requests, tool
 * approvals, self-restart and connector status. None of it ever becomes a turn.
 */
import { CONTROL, ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { validateRuntimeEvent } from '../../shared/ipc/ipc-schemas.ts';
import { type ReplyOutcome, errorOutcome, makeReplyEvent } from '../../shared/ipc/reply-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { isJsonObject, type JsonObject } from '../../shared/types/json.ts';
import type { ApprovalBroker } from '../approvals/approval-broker.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { Metrics } from '../http/metrics.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { Supervisor } from '../process/supervisor.ts';
import type { InstanceOwners } from './instance-owners.ts';

export interface ControlHandlerDeps {
  swarm(): SwarmPlan;
  isKnownAgent(name: string): boolean;
  supervisor: Supervisor;
  delivery: Delivery;
  metrics: Metrics;
  runtimeEvents: RuntimeEventBus;
  approvals: ApprovalBroker;
  owners: InstanceOwners;
  logger: RootLogger;
  onRestartRequested(proc: ManagedProcess, reason: string): void;
}

export class ControlHandler {
  constructor(private readonly deps: ControlHandlerDeps) {}

  handle(event: AgentEvent, from: ManagedProcess): void {
    const meta = event.metadata ?? {};
    switch (event.type) {
      case CONTROL.ready: {
        from.ready = true;
        from.status = 'idle';
        const flushed = from.kind === 'agent' ? this.deps.delivery.flush(from) : 0;
        if (flushed > 0) from.status = 'processing';
        this.deps.logger.info({ process: from.key, childPid: from.pid, redelivered: flushed }, 'process ready');
        return;
      }
      case CONTROL.turnStarted:
        if (typeof meta.eventId === 'string') this.deps.delivery.markStarted(from, meta.eventId);
        from.status = 'processing';
        return;
      case CONTROL.turnCompleted:
        if (typeof meta.eventId === 'string') this.deps.delivery.ack(from, meta.eventId);
        from.consecutiveCrashes = 0; // a completed turn resets the crash count (SPEC.md §2.2)
        if (from.status !== 'draining') from.status = this.deps.delivery.pendingCount(from.name, from.instanceKey) > 0 ? 'processing' : 'idle';
        return;
      case CONTROL.observe: {
        const result = validateRuntimeEvent(meta.event);
        if (!result.ok) {
          this.deps.logger.warn({ process: from.key, problems: result.problems }, 'dropped a malformed runtime event');
          return;
        }
        this.deps.metrics.observe(result.value);
        this.deps.runtimeEvents.publish(result.value);
        return;
      }
      case CONTROL.spawn:
        this.controlSpawn(event, from);
        return;
      case CONTROL.list:
        this.controlReply(from, event, { status: 'ok', output: '', result: { agents: this.listInstances(from, meta.includeAll === true) } });
        return;
      case CONTROL.catalog: {
        const swarm = this.deps.swarm();
        const result: JsonObject = {
          swarmName: swarm.name,
          entryAgent: swarm.entryAgent,
          selfAgent: from.name,
          availableAgents: swarm.agents,
          callableAgents: swarm.agents.filter((a) => a !== from.name),
        };
        this.controlReply(from, event, { status: 'ok', output: '', result });
        return;
      }
      case CONTROL.approvalRequest: {
        const timeoutMs = typeof meta.timeoutMs === 'number' && meta.timeoutMs > 0 ? meta.timeoutMs : 300_000;
        this.deps.approvals.open(
          {
            agent: from.name,
            instanceKey: from.instanceKey,
            processKey: from.key,
            toolName: typeof meta.toolName === 'string' ? meta.toolName : '',
            toolCallId: typeof meta.toolCallId === 'string' ? meta.toolCallId : '',
            args: isJsonObject(meta.args) ? meta.args : {},
            reason: typeof meta.reason === 'string' ? meta.reason : '',
          },
          timeoutMs,
          (outcome) => this.controlReply(from, event, { status: 'ok', output: '', result: outcome }),
        );
        return;
      }
      case CONTROL.approvalDecision: {
        const id = typeof meta.id === 'string' ? meta.id : '';
        const decided = this.deps.approvals.decide(id, {
          approved: meta.approved === true,
          scope: meta.scope === 'session' ? 'session' : 'once',
          decidedBy: from.kind === 'connector' ? from.name : 'agent',
          reason: typeof meta.reason === 'string' ? meta.reason : '',
        });
        if (!decided) this.deps.logger.info({ approvalId: id, from: from.key }, 'decision for an approval that is no longer pending');
        return;
      }
      case CONTROL.restart:
        this.deps.onRestartRequested(from, typeof meta.reason === 'string' ? meta.reason : 'requested by the agent');
        return;
      case CONTROL.connectorStarted:
        from.ready = true;
        from.status = 'idle';
        this.deps.logger.info({ process: from.key, childPid: from.pid }, 'connector started');
        return;
      case CONTROL.connectorFailed:
        this.deps.logger.error({ process: from.key, error: meta.message }, 'connector failed to start');
        return;
      default:
        this.deps.logger.warn({ process: from.key, type: event.type }, 'unknown control event; dropped');
    }
  }

  private controlSpawn(event: AgentEvent, from: ManagedProcess): void {
    const meta = event.metadata ?? {};
    const target = typeof meta.target === 'string' ? meta.target : '';
    const instanceKey = typeof meta.instanceKey === 'string' && meta.instanceKey !== '' ? meta.instanceKey : from.instanceKey;
    if (!this.deps.isKnownAgent(target)) {
      this.controlReply(from, event, errorOutcome('AGENT_NOT_FOUND', `agent '${target}' is not part of swarm '${this.deps.swarm().name}'`));
      return;
    }
    const existed = this.deps.supervisor.get('agent', target, instanceKey)?.alive === true;
    this.deps.owners.record(target, instanceKey, {
      ownerAgent: from.name,
      ownerInstanceKey: from.instanceKey,
      ...(typeof meta.cwd === 'string' ? { cwd: meta.cwd } : {}),
    });
    this.deps.supervisor.ensure('agent', target, instanceKey);
    const result: JsonObject = { target, instanceKey, spawned: !existed };
    if (typeof meta.cwd === 'string') result.cwd = meta.cwd;
    this.controlReply(from, event, { status: 'ok', output: '', result });
  }

  private listInstances(from: ManagedProcess, includeAll: boolean): JsonObject[] {
    const rows: JsonObject[] = [];
    for (const proc of this.deps.supervisor.list()) {
      if (proc.kind !== 'agent') continue;
      const owner = this.deps.owners.get(proc.name, proc.instanceKey);
      const mine = owner?.ownerAgent === from.name && owner.ownerInstanceKey === from.instanceKey;
      if (!includeAll && !mine) continue;
      const row: JsonObject = { target: proc.name, instanceKey: proc.instanceKey, status: proc.status, createdAt: owner?.createdAt ?? proc.startedAt ?? '' };
      if (owner?.ownerAgent) row.ownerAgent = owner.ownerAgent;
      if (owner?.ownerInstanceKey) row.ownerInstanceKey = owner.ownerInstanceKey;
      if (owner?.cwd) row.cwd = owner.cwd;
      rows.push(row);
    }
    return rows;
  }

  private controlReply(to: ManagedProcess, request: AgentEvent, outcome: ReplyOutcome): void {
    if (!request.replyTo) return;
    to.send({
      type: 'event',
      from: ORCHESTRATOR,
      to: to.name,
      payload: makeReplyEvent(request.replyTo.correlationId, ORCHESTRATOR_SOURCE, outcome, CONTROL.response),
    });
  }
}
