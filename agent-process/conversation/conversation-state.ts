/**
 * The event-sourced conversation of one instance (SPEC.md §3.1): `nextMessages = base + Σ events`,
 * applied in order. Extensions never edit arrays; they emit append / replace / remove / truncate.
 * A replace or remove whose target is gone is a structured warning, not a failure; an append of an
 * id that is already present is skipped, which makes replaying events over a folded base (crash
 * recovery) idempotent. Lookups by id and by input event id are O(1): a turn's cost must not grow
 * with the length of the conversation.
 */
import type { ModelMessage } from 'ai';
import type { ConversationState, Message, MessageEvent } from '../../shared/types/messages.ts';

export interface ConversationWarning {
  code: 'E_MESSAGE_TARGET_MISSING' | 'E_MESSAGE_DUPLICATE_ID';
  message: string;
  eventType: MessageEvent['type'];
  targetId: string;
}

export type ReplaceEvent = Extract<MessageEvent, { type: 'replace' }>;

/**
 * How the pending events reach `base.jsonl` (SPEC.md §3.1 Files). `edit`: appends and in-place
 * replacements only (a system prompt that names each event, replaced every turn): the store may
 * append the appended messages to the base and the replacements to `base-edits.jsonl` instead of
 * rewriting a long history; `messages` is the whole conversation, for when it rewrites after all.
 */
export type FoldPlan =
  | { mode: 'none' }
  | { mode: 'delta'; appended: Message[] }
  | { mode: 'edit'; appended: Message[]; replaced: ReplaceEvent[]; messages: () => Message[] }
  | { mode: 'rewrite'; messages: Message[] };

/** The id of the event whose input `message` is (run-turn.ts writes it), undefined for any other message. */
export function inputEventId(message: Message): string | undefined {
  const eventId = message.metadata.eventId;
  return message.source.type === 'user' && typeof eventId === 'string' ? eventId : undefined;
}

/** `metadata.__goondanInterAgentResponse.requestId` of an injected async reply (InterAgentReply). */
export function asyncReplyRequestId(message: Message): string | undefined {
  const meta = message.metadata.__goondanInterAgentResponse;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) && typeof meta.requestId === 'string' ? meta.requestId : undefined;
}

/** Revisions of every conversation in the process: two conversations never share one. */
let lastRevision = 0;

/** The conversation as the model reads it; see Conversation.modelView. */
export interface ModelView {
  /** The live array: read it now, never keep or change it. */
  messages: readonly ModelMessage[];
  /**
   * Changes when messages move (a remove, a truncate), with a new array: while it stays, `messages`
   * only grew at its end or had elements replaced in place, at the positions `patched` lists.
   */
  revision: number;
  /** Positions replaced in place since this revision's array was made, in order: a log that only grows. */
  patched: readonly number[];
}

export class Conversation implements ConversationState {
  private next: Message[];
  private pending: MessageEvent[] = [];
  private appendedSinceFold: Message[] = [];
  /** Replacements done since the fold, in order (a remove or truncate needs a rewrite instead). */
  private replacedSinceFold: ReplaceEvent[] = [];
  private rewriteNeeded = false;
  /**
   * base = next[0, baseLength) with the originals of the messages replaced in place since the fold
   * put back, until the first remove/truncate copies it out (a replacement every turn must not copy
   * the history every turn).
   */
  private baseLength: number;
  private baseCopy: Message[] | undefined;
  private readonly replacedBase = new Map<number, Message>();
  private snapshot: readonly Message[] | undefined;
  /** next[i].data, kept in step with appends and replacements (rebuilt after others) so a step does not copy the history. */
  private modelMessages: ModelMessage[] | undefined;
  private modelPatched: number[] = [];
  private revision = ++lastRevision;
  private readonly ids = new Set<string>();
  /** Ids of the system messages (systemMessages() without a scan). */
  private readonly systemIds = new Set<string>();
  /** `metadata.eventId` of input messages → message id (redelivery lookups). */
  private readonly inputs = new Map<string, string>();
  /** requestId of the async replies in the conversation → message id (a redelivered reply is not injected twice). */
  private readonly replies = new Map<string, string>();

  constructor(
    baseMessages: readonly Message[],
    private readonly onWarning: (warning: ConversationWarning) => void = () => {},
  ) {
    this.next = [...baseMessages];
    this.baseLength = this.next.length;
    for (const message of this.next) this.track(message);
  }

  get baseMessages(): readonly Message[] {
    this.baseCopy ??= this.base();
    return this.baseCopy;
  }

  get events(): readonly MessageEvent[] {
    return this.pending;
  }

  get nextMessages(): readonly Message[] {
    this.snapshot ??= this.next.slice();
    return this.snapshot;
  }

  get messageCount(): number {
    return this.next.length;
  }

  messageAt(index: number): Message | undefined {
    return this.next.at(index);
  }

  systemMessages(): Message[] {
    const found: Array<{ at: number; message: Message }> = [];
    for (const id of this.systemIds) {
      const at = this.indexOf(id);
      const message = this.next[at];
      if (message !== undefined) found.push({ at, message });
    }
    return found.sort((a, b) => a.at - b.at).map((entry) => entry.message);
  }

  toLlmMessages(): ModelMessage[] {
    return this.next.map((message) => message.data);
  }

  /** For the engine's model call: the prompt converter looks only at what was appended since its last call. */
  modelView(): ModelView {
    if (this.modelMessages === undefined) {
      this.modelMessages = this.next.map((message) => message.data);
      this.modelPatched = [];
    }
    return { messages: this.modelMessages, revision: this.revision, patched: this.modelPatched };
  }

  /** Applies one event and records it as pending (to be folded). */
  apply(event: MessageEvent): void {
    this.pending.push(event);
    this.snapshot = undefined;
    if (event.type !== 'append') {
      // The base must survive edits until the fold: a remove or truncate moves messages, so it is
      // copied out once; until then replaced originals are kept by position.
      if (event.type !== 'replace') {
        this.baseCopy ??= this.base();
        this.rewriteNeeded = true;
        this.modelMessages = undefined;
        this.revision = ++lastRevision;
      } else if (!this.rewriteNeeded) this.baseCopy = undefined;
    }
    switch (event.type) {
      case 'append': {
        if (this.ids.has(event.message.id)) {
          this.warn('E_MESSAGE_DUPLICATE_ID', event, event.message.id, `message id '${event.message.id}' is already in the conversation; append skipped`);
          return;
        }
        this.next.push(event.message);
        this.modelMessages?.push(event.message.data);
        this.track(event.message);
        this.appendedSinceFold.push(event.message);
        return;
      }
      case 'replace': {
        const at = this.indexOf(event.targetId);
        const old = this.next[at];
        if (old === undefined) {
          // Already in place: a replay over a base whose edits hold this turn's replacement.
          if (this.ids.has(event.message.id)) return;
          return this.warn('E_MESSAGE_TARGET_MISSING', event, event.targetId, `replace target '${event.targetId}' is not in the conversation`);
        }
        this.untrack(old);
        if (!this.rewriteNeeded && at < this.baseLength && !this.replacedBase.has(at)) this.replacedBase.set(at, old);
        this.next[at] = event.message;
        if (this.modelMessages !== undefined) {
          this.modelMessages[at] = event.message.data;
          this.modelPatched.push(at);
        }
        this.track(event.message);
        this.replacedSinceFold.push(event);
        return;
      }
      case 'remove': {
        const at = this.indexOf(event.targetId);
        const old = this.next[at];
        if (old === undefined) return this.warn('E_MESSAGE_TARGET_MISSING', event, event.targetId, `remove target '${event.targetId}' is not in the conversation`);
        this.untrack(old);
        this.next.splice(at, 1);
        return;
      }
      case 'truncate':
        this.next = [];
        this.ids.clear();
        this.systemIds.clear();
        this.inputs.clear();
        this.replies.clear();
        return;
    }
  }

  /** Delta-append when the pending events only appended, otherwise a full rewrite. */
  foldPlan(): FoldPlan {
    if (this.pending.length === 0) return { mode: 'none' };
    if (this.rewriteNeeded) return { mode: 'rewrite', messages: [...this.next] };
    if (this.replacedSinceFold.length === 0) return { mode: 'delta', appended: [...this.appendedSinceFold] };
    // Replacements are applied after the whole base on load: an appended message taking an id a
    // replacement freed would be found there instead of the message it replaced. And one that keeps
    // its id could be applied again over a newer base, if a rewrite crashed before clearing the edits.
    const freed = new Set(this.replacedSinceFold.map((event) => event.targetId));
    const keepsId = this.replacedSinceFold.some((event) => event.message.id === event.targetId);
    if (keepsId || this.appendedSinceFold.some((message) => freed.has(message.id))) return { mode: 'rewrite', messages: [...this.next] };
    return { mode: 'edit', appended: [...this.appendedSinceFold], replaced: [...this.replacedSinceFold], messages: () => [...this.next] };
  }

  /** Call after the base file was written: base becomes next and the pending events are gone. */
  commitFold(): void {
    this.baseLength = this.next.length;
    this.baseCopy = undefined;
    this.replacedBase.clear();
    this.pending = [];
    this.appendedSinceFold = [];
    this.replacedSinceFold = [];
    this.rewriteNeeded = false;
  }

  /** Index in nextMessages of the message with this id, -1 if absent. */
  indexOf(id: string): number {
    if (!this.ids.has(id)) return -1;
    // From both ends: edits target the latest messages, or the first (the system prompt).
    for (let back = this.next.length - 1, front = 0; front <= back; back--, front++) {
      if (this.next[back]?.id === id) return back;
      if (this.next[front]?.id === id) return front;
    }
    return -1;
  }

  /** Index of the input message appended for event `eventId` (`metadata.eventId`), -1 if absent. */
  inputIndexOf(eventId: string): number {
    const id = this.inputs.get(eventId);
    return id === undefined ? -1 : this.indexOf(id);
  }

  /** The conversation holds the async reply to this request (an index, not a scan). */
  holdsReplyTo(requestId: string): boolean {
    return this.replies.has(requestId);
  }

  /** Index of the latest message with this role, -1 if none. */
  lastIndexOfRole(role: ModelMessage['role']): number {
    for (let i = this.next.length - 1; i >= 0; i--) if (this.next[i]?.data.role === role) return i;
    return -1;
  }

  /** nextMessages[from…] without copying the whole conversation. */
  messagesFrom(from: number): Message[] {
    return this.next.slice(Math.max(0, from));
  }

  /** The base as the last fold left it: next[0, baseLength) with the replaced originals put back. */
  private base(): Message[] {
    const base = this.next.slice(0, this.baseLength);
    for (const [at, original] of this.replacedBase) base[at] = original;
    return base;
  }

  private track(message: Message): void {
    this.ids.add(message.id);
    if (message.data.role === 'system') this.systemIds.add(message.id);
    const eventId = inputEventId(message);
    if (eventId !== undefined) this.inputs.set(eventId, message.id);
    const requestId = asyncReplyRequestId(message);
    if (requestId !== undefined) this.replies.set(requestId, message.id);
  }

  private untrack(message: Message): void {
    this.ids.delete(message.id);
    this.systemIds.delete(message.id);
    const eventId = message.metadata.eventId;
    if (typeof eventId === 'string' && this.inputs.get(eventId) === message.id) this.inputs.delete(eventId);
    const requestId = asyncReplyRequestId(message);
    if (requestId !== undefined && this.replies.get(requestId) === message.id) this.replies.delete(requestId);
  }

  private warn(code: ConversationWarning['code'], event: MessageEvent, targetId: string, message: string): void {
    this.onWarning({ code, message, eventType: event.type, targetId });
  }
}
