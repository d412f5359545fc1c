/**
 * Recognising a redelivered event (ARCHITECTURE §3): its input message carries
 * `metadata.eventId`. A turn counts as finished when, after that input, the conversation ends with
 * an assistant message that has no tool calls; otherwise the turn resumes from where it stands.
 */
import type { Message } from '../../shared/types/messages.ts';
import { toolCallsOf } from '../conversation/message-parts.ts';

export interface InputLocation {
  inputIndex: number;
  input: Message;
  /** The final reply when the turn had finished. */
  finishedWith?: Message;
  /** Assistant messages (= steps) after the input. */
  stepsDone: number;
}

export function locateInput(messages: readonly Message[], eventId: string): InputLocation | undefined {
  let inputIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.source.type === 'user' && message.metadata.eventId === eventId) {
      inputIndex = i;
      break;
    }
  }
  const input = messages[inputIndex];
  if (input === undefined) return undefined;

  let stepsDone = 0;
  let last: Message | undefined;
  for (let i = inputIndex + 1; i < messages.length; i++) {
    const message = messages[i];
    if (!message || message.data.role === 'system') continue; // context-message may sit anywhere
    if (message.data.role === 'assistant') stepsDone++;
    last = message;
  }
  const finished = last !== undefined && last.data.role === 'assistant' && toolCallsOf(last.data).length === 0;
  return finished && last ? { inputIndex, input, finishedWith: last, stepsDone } : { inputIndex, input, stepsDone };
}

/** Index of the latest user message (the start of the newest exchange), -1 if none. */
export function latestUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.data.role === 'user') return i;
  return -1;
}
