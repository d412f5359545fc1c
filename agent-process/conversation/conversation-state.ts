/**
 * The event-sourced conversation of one instance (SPEC.md §3.1): `nextMessages = base + Σ events`,
 * applied in order. Extensions never edit arrays; they emit append / replace / remove / truncate.
 * A replace or remove whose target is gone is a structured warning, not a failure; an append of an
 * id that is already present is skipped, which makes replaying events over a folded base (crash
 * recovery) idempotent.
 */
import type { ModelMessage } from 'ai';
import type { ConversationState, Message, MessageEvent } from '../../shared/types/messages.ts';

export interface ConversationWarning {
  code: 'E_MESSAGE_TARGET_MISSING' | 'E_MESSAGE_DUPLICATE_ID';
  message: string;
  eventType: MessageEvent['type'];
  targetId: string;
}

/** How the pending events reach `base.jsonl` (SPEC.md §3.1 Files). */
export type FoldPlan = { mode: 'none' } | { mode: 'delta'; appended: Message[] } | { mode: 'rewrite'; messages: Message[] };

export class Conversation implements ConversationState {
  private base: Message[];
  private pending: MessageEvent[] = [];
  private next: Message[];
  private appendedSinceFold: Message[] = [];
  private rewriteNeeded = false;
  private snapshot: readonly Message[] | undefined;

  constructor(
    baseMessages: readonly Message[],
    private readonly onWarning: (warning: ConversationWarning) => void = () => {},
  ) {
    this.base = [...baseMessages];
    this.next = [...baseMessages];
  }

  get baseMessages(): readonly Message[] {
    return this.base;
  }

  get events(): readonly MessageEvent[] {
    return this.pending;
  }

  get nextMessages(): readonly Message[] {
    this.snapshot ??= Object.freeze([...this.next]);
    return this.snapshot;
  }

  toLlmMessages(): ModelMessage[] {
    return this.next.map((message) => message.data);
  }

  /** Applies one event and records it as pending (to be folded). */
  apply(event: MessageEvent): void {
    this.pending.push(event);
    this.snapshot = undefined;
    switch (event.type) {
      case 'append': {
        if (this.indexOf(event.message.id) >= 0) {
          this.warn('E_MESSAGE_DUPLICATE_ID', event, event.message.id, `message id '${event.message.id}' is already in the conversation; append skipped`);
          return;
        }
        this.next.push(event.message);
        this.appendedSinceFold.push(event.message);
        return;
      }
      case 'replace': {
        const at = this.indexOf(event.targetId);
        this.rewriteNeeded = true;
        if (at < 0) return this.warn('E_MESSAGE_TARGET_MISSING', event, event.targetId, `replace target '${event.targetId}' is not in the conversation`);
        this.next[at] = event.message;
        return;
      }
      case 'remove': {
        const at = this.indexOf(event.targetId);
        this.rewriteNeeded = true;
        if (at < 0) return this.warn('E_MESSAGE_TARGET_MISSING', event, event.targetId, `remove target '${event.targetId}' is not in the conversation`);
        this.next.splice(at, 1);
        return;
      }
      case 'truncate':
        this.rewriteNeeded = true;
        this.next = [];
        return;
    }
  }

  /** Delta-append when the pending events only appended, otherwise a full rewrite. */
  foldPlan(): FoldPlan {
    if (this.pending.length === 0) return { mode: 'none' };
    if (this.rewriteNeeded) return { mode: 'rewrite', messages: [...this.next] };
    return { mode: 'delta', appended: [...this.appendedSinceFold] };
  }

  /** Call after the base file was written: base becomes next and the pending events are gone. */
  commitFold(): void {
    this.base = [...this.next];
    this.pending = [];
    this.appendedSinceFold = [];
    this.rewriteNeeded = false;
  }

  /** Index in nextMessages of the message with this id, -1 if absent. */
  indexOf(id: string): number {
    for (let i = this.next.length - 1; i >= 0; i--) if (this.next[i]?.id === id) return i;
    return -1;
  }

  private warn(code: ConversationWarning['code'], event: MessageEvent, targetId: string, message: string): void {
    this.onWarning({ code, message, eventType: event.type, targetId });
  }
}
