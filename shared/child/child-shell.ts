/**
 * The one shell of every child process (agent and connector): its state is declared before any
 * await, it says `runtime.ready`, becomes what its `runtime.assign` says (or reports
 * `runtime.failed` with the reason and exits), routes replies to their waiters and events to the
 * runtime, and on `shutdown` drains, acknowledges and exits. A shutdown may arrive at any moment,
 * also while the child is still starting.
 */
import { GoondanError, toErrorShape } from '../errors/index.ts';
import { ORCHESTRATOR, inReplyToOf, isControlEvent } from '../ipc/control-events.ts';
import { type Assignment, type ControlMessage, type ControlPayloads, type ControlType, controlEvent, parseControl } from '../ipc/control-protocol.ts';
import { createParentChannelTransport } from '../ipc/parent-channel-transport.ts';
import { resolveAssignment } from '../ipc/primed-assignment.ts';
import type { Transport } from '../ipc/transport.ts';
import { createDeferredLogger } from '../deferred-logger.ts';
import type { RootLogger } from '../logger.ts';
import type { AgentEvent, EventSource, ShutdownReason } from '../types/events.ts';
import type { JsonObject } from '../types/json.ts';
import { within } from '../within.ts';
import { PendingReplies } from './pending-replies.ts';

/** What a child becomes once assigned. */
export interface ChildRuntime {
  /** The IPC address (`from` of everything it sends): agent or connection name. */
  readonly name: string;
  readonly source: EventSource;
  readonly logger: RootLogger;
  /** Work from the orchestrator (never a reply, never a control event). */
  onEvent(event: AgentEvent): void;
  /** A reply nobody here waits for (e.g. an async reply kept in the durable inbox); true when it was taken. */
  onUnclaimedReply?(event: AgentEvent): boolean;
  /** Control events other than the start-up protocol (e.g. an approval prompt). */
  onControl?(control: ControlMessage): void;
  /**
   * Stop taking work, finish what runs within `gracePeriodMs` (after which the orchestrator kills
   * the process), release resources; then the shell acks and exits.
   */
  drain(reason: ShutdownReason | 'SIGTERM', gracePeriodMs: number): Promise<void>;
  /** Payload of the `shutdown_ack`. */
  readonly ackPayload: JsonObject;
}

/** What the shell offers the runtime it starts. */
export interface ShellChannel {
  readonly transport: Transport;
  readonly replies: PendingReplies;
  control<K extends ControlType>(type: K, payload: ControlPayloads[K]): boolean;
  /**
   * `aheadOfObserved`: before the runtime events observed in this loop turn, which follow right
   * behind — for a message to another agent (request, send, answer), which the orchestrator then
   * routes without first handling the batch (~0.1 ms of each leg of an inter-agent call). Never
   * for a caller that streams the answer (HTTP, a connector): a streamed answer's end must follow
   * its events.
   */
  post(to: string, event: AgentEvent, aheadOfObserved?: boolean): boolean;
  /**
   * A RuntimeEvent for the orchestrator: sent with the others of this loop turn in one
   * `runtime.observe` (a turn has ~5; one IPC message each cost more than the turn's own work),
   * and always before anything else this process sends (but see `post`), so the order is kept.
   */
  observe(event: JsonObject): void;
}

export interface ChildShellOptions {
  /** Logger name before the assignment (`agent`, `connector`). */
  role: string;
  /** Builds the runtime; a throw is reported as `runtime.failed` (retryable only if it says so). */
  start(assignment: Assignment, channel: ShellChannel): Promise<ChildRuntime>;
  /**
   * An uncaught exception or unhandled rejection (`promise`: the rejected one): return true when
   * it was attributed and handled (the process keeps running); false ends the process so the
   * orchestrator restarts it.
   */
  onUncaught?(error: unknown, kind: 'exception' | 'rejection', promise: unknown, logger: RootLogger): boolean;
  /**
   * Loads, before `runtime.ready`, what `start` will need, so that a warm spare serves its first
   * message without loading modules. Best effort: a failure here is the runtime's to report when
   * it loads the same thing in `start`.
   */
  prepare?(): Promise<void>;
  /**
   * After `prepare`, before `runtime.ready`: a warm spare's rehearsal of a turn, when no
   * `runtime.prime` came meanwhile (or its rehearsal failed). Best effort, as `prepare`.
   */
  rehearse?(): Promise<void>;
  /**
   * `runtime.prime` while the process waits for its assignment (a warm spare): rehearse the plan of
   * the agent it will most likely become. Resolves whether it did; answered with `runtime.primed`.
   * One that comes before `runtime.ready` (the pool primes a spare as it launches it) takes the
   * place of `rehearse`: a spare rehearses once, not twice (~20 ms of CPU a new instance).
   */
  prime?(prime: ControlPayloads['runtime.prime']): Promise<boolean>;
  /**
   * The pool sends this spare a `runtime.prime` as it launches it: wait for it (up to
   * PRIME_WAIT_MS) after `prepare` rather than run `rehearse`. Loading modules never yields to the
   * event loop, so the message is read only once something waits for it.
   */
  primeFollows?: boolean;
}

type Phase = 'waiting' | 'starting' | 'serving' | 'draining';

/** Runtime events sent in one `runtime.observe` at most. */
const MAX_OBSERVED_BATCH = 256;

/** A prime the pool said it sent that has not come by then is not waited for (a defect). */
const PRIME_WAIT_MS = 2_000;

/** Give an IPC write a moment to flush before the process goes away. */
const EXIT_FLUSH_MS = 20;

export function runChildShell(options: ChildShellOptions): void {
  // All state first: messages may arrive between any two awaits below (ARCHITECTURE §2).
  let phase: Phase = 'waiting';
  let runtime: ChildRuntime | undefined;
  let shutdownRequested = false;
  let priming = false;
  /** Said `runtime.ready`: a prime from then on is rehearsed when it comes. */
  let saidReady = false;
  /** A prime that came before `runtime.ready`: rehearsed by warmUp() instead of `rehearse`. */
  let earlyPrime: ControlPayloads['runtime.prime'] | undefined;
  const earlyPrimeCame = Promise.withResolvers<void>();
  /** Events sent right after the assignment: they wait here until the runtime is built. */
  const beforeStart: AgentEvent[] = [];
  /** The plans this spare rehearsed (`runtime.prime`): an assignment `asPrimed` takes them from here. */
  let primedWith: ControlPayloads['runtime.prime'] | undefined;
  const bootLogger = createDeferredLogger({ name: options.role });
  const log = (): RootLogger => runtime?.logger ?? bootLogger;
  const replies = new PendingReplies();
  const transport = createParentChannelTransport((problems) => log().warn({ problems }, 'dropped a malformed IPC message'));
  const self = (): EventSource => runtime?.source ?? { kind: options.role === 'connector' ? 'connector' : 'agent', name: 'pool' };
  const sendControl = <K extends ControlType>(type: K, payload: ControlPayloads[K]): boolean =>
    transport.send({ type: 'event', from: self().name, to: ORCHESTRATOR, payload: controlEvent(type, self(), payload) });
  let observed: JsonObject[] = [];
  let observedFlush: ReturnType<typeof setImmediate> | undefined;
  const sendObserved = (): void => {
    if (observedFlush) clearImmediate(observedFlush);
    observedFlush = undefined;
    if (observed.length === 0) return;
    const events = observed;
    observed = [];
    sendControl('runtime.observe', { events });
  };
  const channel: ShellChannel = {
    transport,
    replies,
    control: (type, payload) => {
      sendObserved();
      return sendControl(type, payload);
    },
    post: (to, event, aheadOfObserved = false) => {
      if (!aheadOfObserved) sendObserved();
      const sent = transport.send({ type: 'event', from: self().name, to, payload: event });
      if (aheadOfObserved) sendObserved();
      return sent;
    },
    observe: (event) => {
      observed.push(event);
      // A burst (a long stream of deltas in one loop turn) does not become one huge message.
      if (observed.length >= MAX_OBSERVED_BATCH) sendObserved();
      else observedFlush ??= setImmediate(sendObserved);
    },
  };

  const exitSoon = (code: number) => setTimeout(() => process.exit(code), EXIT_FLUSH_MS);

  // Without the orchestrator nobody can receive replies or acks: exit; unfolded state is recovered on the next start.
  transport.onDisconnect(() => {
    replies.failAll('the orchestrator is gone');
    log().warn('IPC channel closed (orchestrator gone); exiting');
    process.exit(0);
  });
  // A terminal's Ctrl-C or hangup reaches the whole process group: the orchestrator's to handle; it drains us with a `shutdown` message.
  process.on('SIGINT', () => {});
  process.on('SIGHUP', () => {});
  // A SIGTERM promises no grace period: running tool calls (and their processes) end now.
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('uncaughtException', (error) => uncaught(error, 'exception', undefined));
  process.on('unhandledRejection', (reason, promise) => uncaught(reason, 'rejection', promise));

  function uncaught(error: unknown, kind: 'exception' | 'rejection', promise: unknown): void {
    if (options.onUncaught?.(error, kind, promise, log())) return;
    log().fatal({ err: error, kind }, `uncaught ${kind}; exiting so the orchestrator restarts this process`);
    process.exit(1);
  }

  async function begin(assignment: Assignment | undefined): Promise<void> {
    if (phase !== 'waiting') {
      log().warn('a second assignment was ignored');
      return;
    }
    phase = 'starting';
    const startedAt = performance.now();
    try {
      // The orchestrator says `asPrimed` only to a spare that answered it was primed with the plans.
      if (!assignment) throw new GoondanError('E_ASSIGNMENT_NOT_PRIMED', 'system', 'assigned as primed, but this process holds no plan for that agent', { suggestion: 'this is a goondan bug; report it (the instance starts again from a new process)', details: { retryable: true } });
      runtime = await options.start(assignment, channel);
    } catch (error) {
      const shape = toErrorShape(error, 'E_CHILD_START', 'system');
      const retryable = shape.details?.retryable === true;
      log().fatal({ error: shape, retryable }, 'cannot start');
      channel.control('runtime.failed', { error: shape, retryable });
      exitSoon(1);
      return;
    }
    if (shutdownRequested) {
      process.exit(0);
      return;
    }
    phase = 'serving';
    channel.control('runtime.started', { startupMs: performance.now() - startedAt });
    for (const event of beforeStart.splice(0)) runtime.onEvent(event);
  }

  async function shutdown(reason: ShutdownReason | 'SIGTERM', gracePeriodMs: number): Promise<void> {
    shutdownRequested = true;
    // Still waiting for an assignment, or still starting: nothing to drain.
    if (phase === 'waiting') process.exit(0);
    if (phase !== 'serving' || !runtime) return;
    phase = 'draining';
    log().info({ reason, gracePeriodMs }, 'draining');
    try {
      await runtime.drain(reason, gracePeriodMs);
    } catch (error) {
      log().error({ err: error }, 'drain failed');
    }
    sendObserved();
    transport.send({ type: 'shutdown_ack', from: runtime.name, to: ORCHESTRATOR, payload: runtime.ackPayload });
    exitSoon(0);
  }

  transport.onMessage((message) => {
    if (message.type === 'shutdown') {
      void shutdown(message.payload.reason, message.payload.gracePeriodMs);
      return;
    }
    if (message.type !== 'event') return;
    const event = message.payload;
    if (inReplyToOf(event)) {
      if (!replies.handleResponse(event) && !runtime?.onUnclaimedReply?.(event)) log().debug({ eventId: event.id }, 'reply for an unknown request; dropped');
      return;
    }
    if (isControlEvent(event)) {
      handleControl(event);
      return;
    }
    // Events follow the assignment; one that raced a drain (or a failed start) stays in the durable inbox.
    if (phase === 'serving') runtime?.onEvent(event);
    else if (phase === 'starting') beforeStart.push(event);
  });

  function handleControl(event: AgentEvent): void {
    const parsed = parseControl(event);
    if (!parsed.ok && event.type === 'runtime.assign' && phase === 'waiting') {
      // Dropped, it would leave the orchestrator waiting out the start timeout for a failure known now.
      phase = 'starting';
      const error = new GoondanError('E_ASSIGNMENT_INVALID', 'system', `the assignment does not match the plan schema: ${parsed.problems.join('; ')}`, {
        suggestion: 'a goondan bug (the daemon built a plan its agent process refuses): report it with these problems',
      });
      log().fatal({ problems: parsed.problems }, 'cannot start: malformed assignment');
      channel.control('runtime.failed', { error: error.toJSON(), retryable: false });
      exitSoon(1);
      return;
    }
    if (!parsed.ok) {
      log().warn({ type: event.type, problems: parsed.problems }, 'dropped a malformed control event');
      return;
    }
    const control = parsed.message;
    if (control.type === 'runtime.assign') void begin(resolveAssignment(control.payload, primedWith));
    else if (control.type === 'runtime.prime') onPrime(control.payload);
    else if (control.type === 'runtime.error') log().warn({ eventId: control.payload.eventId, error: control.payload.error }, 'the orchestrator could not route a message');
    else runtime?.onControl?.(control);
  }

  function onPrime(payload: ControlPayloads['runtime.prime']): void {
    // Still loading: warmUp() rehearses it (the latest one) once the modules are in.
    if (saidReady) {
      void prime(payload);
      return;
    }
    earlyPrime = payload;
    earlyPrimeCame.resolve();
  }

  async function prime(payload: ControlPayloads['runtime.prime']): Promise<boolean> {
    // Once assigned it is no spare; a second prime while one runs would only repeat it.
    if (phase !== 'waiting' || !options.prime || priming) return false;
    priming = true;
    const ok = await options.prime(payload).catch(() => false);
    priming = false;
    if (ok) primedWith = payload;
    // Assigned meanwhile: the pool no longer listens, and the orchestrator would not expect it.
    if (phase === 'waiting') channel.control('runtime.primed', { agent: payload.agentPlan.name, ok });
    return ok;
  }

  /** The early prime, if one came: rehearsed now, as a ready spare's would be. */
  async function primeEarly(): Promise<boolean> {
    const payload = earlyPrime;
    earlyPrime = undefined;
    return payload ? prime(payload) : false;
  }

  async function warmUp(): Promise<void> {
    await options.prepare?.().catch(() => {});
    if (options.primeFollows) await within(earlyPrimeCame.promise, PRIME_WAIT_MS, () => undefined);
    if (await primeEarly()) return;
    await options.rehearse?.().catch(() => {});
    // A prime that came during the rehearsal: the pool sent it once and waits for its answer.
    await primeEarly();
  }

  void warmUp().then(() => {
    saidReady = true;
    channel.control('runtime.ready', { pid: process.pid });
  });
}

