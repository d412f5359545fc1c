/**
 * A scripted child process for the orchestrator core tests: the child end of an in-memory
 * transport pair plus a fake process handle. It speaks the same protocol as the real child shell
 * (runtime.ready → runtime.assign → runtime.started | runtime.failed, turn acknowledgements, replies,
 * shutdown → shutdown_ack → exit), but only when the test says so — or automatically, per its
 * ChildBehaviour. Everything it receives is recorded.
 */
import type { ChildExit, ChildHandle } from '../../../orchestrator/process/child-launcher.ts';
import { agentKey } from '../../../shared/ipc/agent-id.ts';
import { ORCHESTRATOR, inReplyToOf, isControlEvent, makeEvent } from '../../../shared/ipc/control-events.ts';
import { type AgentAssignment, type PrimedAgentAssignment, type ControlPayloads, type ControlType, controlEvent, parseControl } from '../../../shared/ipc/control-protocol.ts';
import type { TypedIpcMessage } from '../../../shared/ipc/ipc-schemas.ts';
import type { MemoryEnd } from '../../../shared/ipc/memory-transport.ts';
import { failureOutcome, makeReplyEvent, type ReplyOutcome, replyOutcomeOf } from '../../../shared/ipc/reply-events.ts';
import { CALL_CHAIN_KEY, HOPS_KEY, TIMEOUT_KEY, callChainOf } from '../../../shared/ipc/request-metadata.ts';
import type { ErrorShape } from '../../../shared/errors/index.ts';
import { newId } from '../../../shared/ids.ts';
import type { AgentEvent, EventSource } from '../../../shared/types/events.ts';
import { eventually } from './eventually.ts';

/** What a child does by itself; anything it does not do, the test does through the methods. */
export interface ChildBehaviour {
  /** Says `runtime.ready` as soon as it is launched. */
  autoReady: boolean;
  /** Answers `runtime.assign` with `runtime.started`. */
  autoStart: boolean;
  /**
   * Auto agent: runs every work event as a turn at once — turn.started, the reply (when the event
   * asks for one) with this output, turn.completed. Undefined: the test drives turns.
   */
  answer: ((event: AgentEvent) => string) | undefined;
  /** On `shutdown`: `ack` acknowledges and exits 0, `ignore` does nothing (the test decides). */
  onShutdown: 'ack' | 'ignore';
}

export const DEFAULT_BEHAVIOUR: ChildBehaviour = { autoReady: true, autoStart: true, answer: undefined, onShutdown: 'ack' };

export interface OutgoingOptions {
  input?: string;
  /** Absent: the router defaults it to the caller's own instanceKey. */
  instanceKey?: string;
  /** The event whose turn sends this (its call chain is extended, as the real agent does). */
  during?: AgentEvent;
  timeoutMs?: number;
  /** `metadata.__hops` as sent: a real agent counts it from `during`, a rogue one may say anything. */
  hops?: number;
}

export class FakeChild {
  readonly received: TypedIpcMessage[] = [];
  /** What the child sent (before the transport's JSON round trip). */
  readonly sent: TypedIpcMessage[] = [];
  behaviour: ChildBehaviour;
  /** As received: to a spare primed with the same plans, without them (`asPrimed`). */
  assignment: AgentAssignment | PrimedAgentAssignment | undefined;
  /** Problems of an assignment that failed its schema (a real child would report runtime.failed). */
  assignmentProblems: string[] | undefined;
  exit: ChildExit | undefined;
  /** Signals the orchestrator sent with kill(). */
  readonly signals: string[] = [];
  readonly handle: ChildHandle;
  private resolveExit: (exit: ChildExit) => void = () => {};
  private exiting = false;
  /** Said runtime.started: work received before waits until then, as in the real shell. */
  private isStarted = false;

  constructor(
    readonly pid: number,
    readonly transport: MemoryEnd,
    behaviour: ChildBehaviour,
    readonly launchedAt: number,
  ) {
    this.behaviour = { ...behaviour };
    const exited = new Promise<ChildExit>((resolve) => {
      this.resolveExit = resolve;
    });
    const child = this;
    this.handle = {
      pid,
      get alive() {
        return child.exit === undefined;
      },
      exited,
      kill(signal) {
        if (child.exiting) return;
        child.signals.push(signal);
        child.terminate({ exitCode: null, signal });
      },
    };
    transport.onMessage((message) => this.receive(message));
    if (this.behaviour.autoReady) this.ready();
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** `agent:instanceKey` once assigned, `pool` before. */
  get key(): string {
    return this.assignment ? agentKey({ agent: this.assignment.agent, instanceKey: this.assignment.instanceKey }) : 'pool';
  }

  get source(): EventSource {
    return { kind: 'agent', name: this.assignment?.agent ?? 'pool' };
  }

  /** Work the runtime got: events that are neither control traffic nor replies, in arrival order, once started. */
  work(): AgentEvent[] {
    return this.isStarted ? this.workReceived() : [];
  }

  /** Work that reached the process, started or not (the orchestrator sends it right after the assignment). */
  workReceived(): AgentEvent[] {
    return this.events().filter(isWork);
  }

  /** Replies received (inter-agent responses and the orchestrator's answers). */
  replies(): AgentEvent[] {
    return this.events().filter((e) => inReplyToOf(e) !== undefined);
  }

  events(): AgentEvent[] {
    return this.received.flatMap((m) => (m.type === 'event' ? [m.payload] : []));
  }

  // ── start-up protocol ───────────────────────────────────────────────────

  ready(): void {
    this.control('runtime.ready', { pid: this.pid });
  }

  started(): void {
    this.control('runtime.started', { startupMs: 1 });
    this.isStarted = true;
    const answer = this.behaviour.answer;
    if (answer) for (const event of this.work()) this.runTurn(event, answer(event));
  }

  failed(error: ErrorShape, retryable: boolean): void {
    this.control('runtime.failed', { error, retryable });
  }

  // ── turns ───────────────────────────────────────────────────────────────

  turnStarted(eventId: string): void {
    this.control('runtime.turn.started', { eventId });
  }

  turnCompleted(eventId: string): void {
    this.control('runtime.turn.completed', { eventId });
  }

  /** Answers a request as the callee does when its turn ends (`unsynced`: before its turn's fsync). */
  reply(event: AgentEvent, result: { output: string } | { error: ErrorShape }, options: { unsynced?: true } = {}): void {
    if (!event.replyTo) throw new Error(`event ${event.id} asked for no reply`);
    const outcome: ReplyOutcome = { ...('output' in result ? { status: 'ok', output: result.output } : failureOutcome(result.error)), ...options };
    this.post(event.replyTo.target, makeReplyEvent(event.replyTo.correlationId, this.source, outcome));
  }

  /** One whole turn: started, reply (if asked for), completed. */
  runTurn(event: AgentEvent, output: string): void {
    this.turnStarted(event.id);
    if (event.replyTo) this.reply(event, { output });
    this.turnCompleted(event.id);
  }

  // ── agent-to-agent traffic ──────────────────────────────────────────────

  /** A request to another agent, with replyTo, call chain and timeout as the agent runtime builds them. */
  request(to: string, options: OutgoingOptions = {}): AgentEvent {
    const correlationId = newId('corr');
    const event = this.outgoing('agent.request', options, {
      [CALL_CHAIN_KEY]: [...callChainOf(options.during), this.key],
      ...(options.timeoutMs !== undefined ? { [TIMEOUT_KEY]: options.timeoutMs } : {}),
    });
    event.replyTo = { target: this.source.name, correlationId };
    this.post(to, event);
    return event;
  }

  /** A fire-and-forget send to another agent. */
  send(to: string, options: OutgoingOptions = {}): AgentEvent {
    const event = this.outgoing('agent.send', options, {});
    this.post(to, event);
    return event;
  }

  post(to: string, event: AgentEvent): boolean {
    const message: TypedIpcMessage = { type: 'event', from: this.source.name, to, payload: event };
    this.sent.push(message);
    return this.transport.send(message);
  }

  control<K extends ControlType>(type: K, payload: ControlPayloads[K]): boolean {
    return this.post(ORCHESTRATOR, controlEvent(type, this.source, payload));
  }

  shutdownAck(): void {
    const message: TypedIpcMessage = { type: 'shutdown_ack', from: this.source.name, to: ORCHESTRATOR, payload: {} };
    this.sent.push(message);
    this.transport.send(message);
  }

  /** A control round trip (runtime.catalog): resolves once the orchestrator has handled all this child sent before. */
  async sync(): Promise<void> {
    const request = controlEvent('runtime.catalog', this.source, {}, { replyTo: { target: this.source.name, correlationId: newId('sync') } });
    this.post(ORCHESTRATOR, request);
    await this.waitForReply(request);
  }

  // ── process end ─────────────────────────────────────────────────────────

  crash(exitCode = 1): void {
    this.terminate({ exitCode, signal: null });
  }

  exitCleanly(): void {
    this.terminate({ exitCode: 0, signal: null });
  }

  // ── waiting ─────────────────────────────────────────────────────────────

  /** The first received message (already or later) that matches. */
  waitFor(predicate: (message: TypedIpcMessage) => boolean, what: string): Promise<TypedIpcMessage> {
    return eventually(() => this.received.find(predicate), `${what} at ${this.key} (pid ${this.pid})`, () => this.describeReceived());
  }

  /** The `n`-th work event (1-based). */
  waitForWork(n: number, what = `work event #${n}`): Promise<AgentEvent> {
    return eventually(() => this.work()[n - 1], `${what} at ${this.key} (pid ${this.pid})`, () => this.describeReceived());
  }

  /** The reply to `request` as the caller reads it. */
  async waitForReply(request: AgentEvent): Promise<ReplyOutcome> {
    const correlationId = request.replyTo?.correlationId;
    const reply = await eventually(
      () => this.replies().find((e) => inReplyToOf(e) === correlationId),
      `the reply to ${correlationId} at ${this.key}`,
      () => this.describeReceived(),
    );
    return replyOutcomeOf(reply);
  }

  describeReceived(): string {
    const items = this.received.map((m) => {
      if (m.type !== 'event') return m.type;
      const inReplyTo = inReplyToOf(m.payload);
      const error = m.payload.metadata?.error;
      const code = typeof error === 'object' && error !== null && !Array.isArray(error) ? ` ${String(error.code)}` : '';
      return inReplyTo ? `reply(${inReplyTo}${code})` : `${m.payload.type}${m.payload.input ? `(${m.payload.input})` : ''}`;
    });
    return `[${items.join(', ')}]${this.exit ? ` exited ${JSON.stringify(this.exit)}` : ''}`;
  }

  // ── internals ───────────────────────────────────────────────────────────

  private outgoing(type: string, options: OutgoingOptions, metadata: Record<string, string[] | number>): AgentEvent {
    return makeEvent(type, this.source, {
      input: options.input ?? `${type} from ${this.key}`,
      metadata: { ...metadata, ...(options.hops !== undefined ? { [HOPS_KEY]: options.hops } : {}) },
      ...(options.instanceKey !== undefined ? { instanceKey: options.instanceKey } : {}),
      ...(options.during?.traceId ? { traceId: options.during.traceId } : {}),
    });
  }

  private receive(message: TypedIpcMessage): void {
    if (this.exiting) return;
    this.received.push(message);
    if (message.type === 'shutdown') {
      if (this.behaviour.onShutdown === 'ack') {
        this.shutdownAck();
        this.exitCleanly();
      }
      return;
    }
    if (message.type !== 'event') return;
    const event = message.payload;
    if (event.type === 'runtime.assign') {
      this.assign(event);
      return;
    }
    const answer = this.behaviour.answer;
    if (answer && this.isStarted && isWork(event)) this.runTurn(event, answer(event));
  }

  private assign(event: AgentEvent): void {
    const parsed = parseControl(event);
    if (!parsed.ok || parsed.message.type !== 'runtime.assign' || parsed.message.payload.role !== 'agent') {
      this.assignmentProblems = parsed.ok ? ['not an agent assignment'] : parsed.problems;
      return;
    }
    this.assignment = parsed.message.payload;
    if (this.behaviour.autoStart) this.started();
  }

  /** Exits after what was already sent has been delivered (microtasks run in order), like a real channel. */
  private terminate(exit: ChildExit): void {
    if (this.exiting) return;
    this.exiting = true;
    queueMicrotask(() => {
      this.exit = exit;
      this.transport.close();
      this.resolveExit(exit);
    });
  }
}

/** Work for the runtime: neither control traffic nor a reply. */
function isWork(event: AgentEvent): boolean {
  return !isControlEvent(event) && inReplyToOf(event) === undefined;
}
