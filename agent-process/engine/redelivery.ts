/**
 * Recognising a redelivered event (ARCHITECTURE §3): its input message carries
 * `metadata.eventId`. Its turn is what follows that input up to the next event's input (later turns
 * may have run before the redelivery: several turns finished before their acks, a cluster node that
 * lost its lease). The turn counts as finished when it ends with an assistant message that has no
 * tool calls; otherwise it resumes from where it stands, unless later events' turns ran after it
 * (`overtakenBy`): its new steps would come after theirs, made from a conversation past it.
 */
import type { Message } from '../../shared/types/messages.ts';
import { type Conversation, inputEventId } from '../conversation/conversation-state.ts';
import { toolCallsOf } from '../conversation/message-parts.ts';

export interface InputLocation {
  inputIndex: number;
  input: Message;
  /** The final reply when the turn had finished. */
  finishedWith?: Message;
  /** Assistant messages (= steps) after the input. */
  stepsDone: number;
  /** The latest assistant message after the input. */
  lastAssistant?: Message;
  /** The id of the event whose input follows this turn's part of the conversation. */
  overtakenBy?: string;
}

export function locateInput(conversation: Conversation, eventId: string): InputLocation | undefined {
  const inputIndex = conversation.inputIndexOf(eventId);
  if (inputIndex < 0) return undefined;
  const [input, ...after] = conversation.messagesFrom(inputIndex);
  if (input === undefined) return undefined;

  let stepsDone = 0;
  let last: Message | undefined;
  let lastAssistant: Message | undefined;
  let overtakenBy: string | undefined;
  for (const message of after) {
    // The next event's input starts another turn.
    const inputOf = inputEventId(message);
    if (inputOf !== undefined && inputOf !== eventId) {
      overtakenBy = inputOf;
      break;
    }
    if (message.data.role === 'system') continue; // context-message may sit anywhere
    if (message.data.role === 'assistant') {
      stepsDone++;
      lastAssistant = message;
    }
    last = message;
  }
  const location: InputLocation = { inputIndex, input, stepsDone };
  if (lastAssistant) location.lastAssistant = lastAssistant;
  if (last !== undefined && last === lastAssistant && toolCallsOf(last.data).length === 0) location.finishedWith = last;
  if (overtakenBy !== undefined) location.overtakenBy = overtakenBy;
  return location;
}
