/**
 * Tool calls waiting for a human (tool permission policy, `ask`). A request is shown to the person
 * at the terminal (interactive `cli` connector) and/or held for `POST /v1/approvals/{id}` (when
 * GOONDAN_APPROVALS=http); the first decision wins, no decision in time is a deny, and with no
 * approver at all the request is denied at once, saying why.
 *
 * Approvals are durable (issue 10): each is a record in its instance's state (approval-store.ts)
 * that outlives the asking process and the daemon, with the same `id`, `createdAt` and
 * `expiresAt`. A resumed turn asking again for the same call (same event, same tool call id)
 * attaches to the existing record — or gets the decision made meanwhile — instead of asking
 * anew; the timeout counts from `createdAt`. "Always for this session" grants are kept per
 * instance and answer later asks for that tool at once.
 */
import { type ApprovalDisplay, type ApprovalPrompt, approvalDisplayOf } from '../../shared/ipc/control-protocol.ts';
import { agentKey } from '../../shared/ipc/agent-id.ts';
import { newId } from '../../shared/ids.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { canonicalJson } from '../../shared/canonical-json.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ApprovalOutcome, ApprovalRecord, ApprovalStore, InstanceApprovals } from './approval-store.ts';

/** The approval a budget's `ask` opens (usage/model-calls.ts): not a tool. */
export const BUDGET_TOOL_NAME = 'model-call';

export type { ApprovalOutcome } from './approval-store.ts';

/** A tool call waiting for a human: what `GET /v1/approvals` lists and the terminal prompt shows. */
export type PendingApproval = ApprovalPrompt;

export interface ApprovalBrokerOptions {
  logger: RootLogger;
  /** Whether decisions may come through the HTTP API (GOONDAN_APPROVALS=http). */
  httpApprovals: boolean;
  /** Shows the approval at an interactive terminal; false when there is none. */
  promptInteractive(approval: PendingApproval): boolean;
  /** Durable records; without one (unit tests of other rules) approvals live in memory only. */
  store?: ApprovalStore;
  /** A decision was made while the asking instance had no process (e.g. it was passivated while it waited). */
  onDecidedWhileAway?(agent: string, instanceKey: string): void;
}

export const NO_APPROVER_REASON =
  'no approver is configured for this run: start goondan in a terminal to answer at the prompt, or set GOONDAN_APPROVALS=http and decide with POST /v1/approvals/{id}';

/** Decided records are kept this long, for a turn that resumes after the decision. */
const DECIDED_RETENTION_MS = 60 * 60 * 1000;

export type ApprovalAsk = ApprovalDisplay & {
  agent: string;
  instanceKey: string;
  toolName: string;
  toolCallId: string;
  args: JsonObject;
  reason: string;
  processKey: string;
  /** The event whose turn asks: with toolCallId, what identifies the call across resumes. */
  eventId?: string;
};

interface Waiter {
  processKey: string;
  /** When the process started waiting (ms since the epoch). */
  since: number;
  answer(outcome: ApprovalOutcome): void;
}

export class ApprovalBroker {
  private readonly instances = new Map<string, InstanceApprovals>();
  private readonly waiters = new Map<string, Waiter>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly saveListeners: Array<(agent: string, instanceKey: string) => void> = [];

  constructor(private readonly options: ApprovalBrokerOptions) {}

  /** Daemon start: pending approvals of earlier runs are listed again and time out from their createdAt. */
  restore(): void {
    const loaded = this.options.store?.loadAll((path) => this.options.logger.warn({ file: path }, 'skipped an unreadable approvals file')) ?? [];
    for (const state of loaded) {
      this.instances.set(agentKey(state), state);
      for (const record of state.records) if (!record.decision) this.armTimer(record);
    }
    const pending = this.list().length;
    if (pending > 0) this.options.logger.info({ pending }, 'restored pending approvals');
  }

  open(request: ApprovalAsk, timeoutMs: number, answer: (outcome: ApprovalOutcome) => void): void {
    const state = this.stateOf(request.agent, request.instanceKey);
    if (state.sessionGrants.includes(sessionGrantKey(request.toolName, request.args))) {
      answer({ approved: true, scope: 'session', decidedBy: 'session-grant', reason: `this call of '${request.toolName}' was approved for this session` });
      return;
    }
    const key = request.eventId !== undefined ? `${request.eventId}/${request.toolCallId}` : undefined;
    const existing = key !== undefined ? state.records.find((r) => r.key === key) : undefined;
    if (existing?.decision) {
      this.options.logger.info({ approvalId: existing.approval.id, approved: existing.decision.approved }, 'resumed turn asked again: answering with the decision already made');
      const { decidedAt: _at, ...outcome } = existing.decision;
      answer(outcome);
      return;
    }
    const record = existing ?? this.newRecord(state, request, key, timeoutMs);
    const prompted = this.options.promptInteractive(record.approval);
    if (!prompted && !this.options.httpApprovals) {
      this.options.logger.warn({ agent: request.agent, toolName: request.toolName }, 'approval needed but nobody can approve; denied');
      state.records = state.records.filter((r) => r !== record);
      this.save(state);
      answer({ approved: false, scope: 'once', decidedBy: 'no-approver', reason: NO_APPROVER_REASON });
      return;
    }
    this.waiters.set(record.approval.id, { processKey: request.processKey, since: Date.now(), answer });
    this.options.logger.info({ approvalId: record.approval.id, agent: request.agent, toolName: request.toolName, prompted, resumed: existing !== undefined }, 'tool call waits for approval');
  }

  /** Undecided approvals, also those whose asking process is gone (it asks again when it resumes). */
  list(): PendingApproval[] {
    const out: PendingApproval[] = [];
    for (const state of this.instances.values()) for (const record of state.records) if (!record.decision) out.push(record.approval);
    return out;
  }

  /** Returns false for an unknown (or already decided) id. */
  decide(id: string, outcome: ApprovalOutcome): boolean {
    const found = this.find(id);
    if (!found || found.record.decision) return false;
    const { state, record } = found;
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    record.decision = { ...outcome, decidedAt: new Date().toISOString() };
    const grant = sessionGrantKey(record.approval.toolName, record.approval.args);
    if (outcome.approved && outcome.scope === 'session' && !state.sessionGrants.includes(grant)) state.sessionGrants.push(grant);
    this.prune(state);
    this.save(state);
    this.options.logger.info({ approvalId: id, approved: outcome.approved, decidedBy: outcome.decidedBy, scope: outcome.scope }, 'approval decided');
    const waiter = this.waiters.get(id);
    this.waiters.delete(id);
    if (waiter) waiter.answer(outcome);
    else this.options.onDecidedWhileAway?.(state.agent, state.instanceKey);
    return true;
  }

  /** Since when the process has waited for a decision (its oldest open ask); undefined when it waits for none. */
  waitingSince(processKey: string): number | undefined {
    let since: number | undefined;
    for (const waiter of this.waiters.values()) if (waiter.processKey === processKey && (since === undefined || waiter.since < since)) since = waiter.since;
    return since;
  }

  /** Whether an instance has an approval nobody has decided yet (its resumed turn would wait again). */
  hasUndecided(agent: string, instanceKey: string): boolean {
    return this.instances.get(agentKey({ agent, instanceKey }))?.records.some((r) => !r.decision) ?? false;
  }

  /** The asking process is gone: nobody can be answered now, but the records stay for its resumed turn. */
  dropFor(processKey: string): void {
    for (const [id, waiter] of this.waiters) if (waiter.processKey === processKey) this.waiters.delete(id);
  }

  /** `instance delete` / `restart --fresh`: the instance's approvals and grants go with its state. */
  forget(agent: string, instanceKey: string): void {
    const state = this.instances.get(agentKey({ agent, instanceKey }));
    if (!state) return;
    for (const record of state.records) {
      clearTimeout(this.timers.get(record.approval.id));
      this.timers.delete(record.approval.id);
      this.waiters.delete(record.approval.id);
    }
    this.instances.delete(agentKey({ agent, instanceKey }));
  }

  /**
   * Cluster mode: the instance's state was restored on this node (after a takeover, a hand-over):
   * its approvals are the ones its restored approvals.json holds — same ids, createdAt, expiresAt
   * and session grants — and time out from their createdAt.
   */
  adopt(agent: string, instanceKey: string): void {
    this.forget(agent, instanceKey);
    const state = this.options.store?.load(agent, instanceKey, (path) => this.options.logger.warn({ file: path }, 'skipped an unreadable approvals file'));
    if (!state) return;
    this.instances.set(agentKey(state), state);
    const pending = state.records.filter((record) => !record.decision);
    for (const record of pending) this.armTimer(record);
    if (pending.length > 0) this.options.logger.info({ agent, instanceKey, pending: pending.length }, 'took over pending approvals with the instance');
  }

  /** Cluster mode at start: the approvals read from disk are of instances another node may run now; each comes back with its instance (adopt). */
  forgetAll(): void {
    for (const state of [...this.instances.values()]) this.forget(state.agent, state.instanceKey);
  }

  /** Called after each write of an instance's approvals (cluster mode stores them with the instance's state). */
  onSaved(listener: (agent: string, instanceKey: string) => void): void {
    this.saveListeners.push(listener);
  }

  /** Daemon stop: timers end; the records stay on disk. */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.waiters.clear();
  }

  private newRecord(state: InstanceApprovals, request: ApprovalAsk, key: string | undefined, timeoutMs: number): ApprovalRecord {
    const now = Date.now();
    const record: ApprovalRecord = {
      approval: {
        id: newId('appr'),
        agent: request.agent,
        instanceKey: request.instanceKey,
        toolName: request.toolName,
        toolCallId: request.toolCallId,
        args: request.args,
        reason: request.reason,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + timeoutMs).toISOString(),
      },
      ...(key !== undefined ? { key } : {}),
    };
    // The summary, display name, icon and the tool's preview are what a person reads first (issue 17).
    Object.assign(record.approval, approvalDisplayOf(request));
    state.records.push(record);
    this.prune(state);
    this.save(state);
    this.armTimer(record);
    return record;
  }

  /** askTimeoutSeconds counts from createdAt, across restarts. */
  private armTimer(record: ApprovalRecord): void {
    const { id, createdAt, expiresAt } = record.approval;
    const timeoutMs = Date.parse(expiresAt) - Date.parse(createdAt);
    const remaining = Math.max(0, Date.parse(expiresAt) - Date.now());
    this.timers.set(
      id,
      setTimeout(() => this.decide(id, { approved: false, scope: 'once', decidedBy: 'timeout', reason: `nobody answered within ${Math.round(timeoutMs / 1000)} s` }), remaining),
    );
  }

  private find(id: string): { state: InstanceApprovals; record: ApprovalRecord } | undefined {
    for (const state of this.instances.values()) {
      const record = state.records.find((r) => r.approval.id === id);
      if (record) return { state, record };
    }
    return undefined;
  }

  private stateOf(agent: string, instanceKey: string): InstanceApprovals {
    const key = agentKey({ agent, instanceKey });
    let state = this.instances.get(key);
    if (!state) {
      state = { agent, instanceKey, records: [], sessionGrants: [] };
      this.instances.set(key, state);
    }
    return state;
  }

  /** Decided records older than the retention are dropped. */
  private prune(state: InstanceApprovals): void {
    const horizon = Date.now() - DECIDED_RETENTION_MS;
    state.records = state.records.filter((r) => !r.decision || Date.parse(r.decision.decidedAt) >= horizon);
  }

  private save(state: InstanceApprovals): void {
    try {
      this.options.store?.save(state);
    } catch (error) {
      this.options.logger.error({ err: error, agent: state.agent, instanceKey: state.instanceKey }, 'cannot write the approvals file');
      return;
    }
    for (const listener of this.saveListeners) listener(state.agent, state.instanceKey);
  }
}

/**
 * What "approve for this session" covers: the same call (tool and arguments) — per tool name, a
 * person approving `touch x` approved every later line of the shell tool, `… | sh` included. A
 * budget's ask (`model-call`, whose figures change with every call) covers the instance's calls.
 */
export function sessionGrantKey(toolName: string, args: JsonObject): string {
  return toolName === BUDGET_TOOL_NAME ? toolName : `${toolName}\u0000${canonicalJson(args)}`;
}
