/**
 * Which messages the window drops (pure): the oldest units first until at most `maxMessages`
 * remain, never a protected message (pinned, system prompt, current input) nor half of a tool
 * call/result pair — then, if something was cut, until the history starts with a user message.
 */
import type { Message } from '../../../../shared/types/messages.ts';
import { isProtected, selectRemovals } from '../message-integrity.ts';

export interface WindowPlan {
  /** Ids to remove, in conversation order. */
  remove: string[];
  /** Messages left after the removals (more than maxMessages when protected ones alone exceed it). */
  remaining: number;
}

export function planWindow(messages: readonly Message[], options: { maxMessages: number; startWithUserMessage: boolean; inputEventId: string }): WindowPlan {
  const keep = (message: Message): boolean => isProtected(message, options.inputEventId);
  const startsWithUser = (removed: ReadonlySet<string>): boolean => {
    const first = messages.find((message) => !removed.has(message.id) && message.data.role !== 'system');
    return first === undefined || first.data.role === 'user' || keep(first);
  };
  const removed = selectRemovals(messages, {
    keep,
    enough: (selected, unitsTaken) =>
      messages.length - selected.size <= options.maxMessages && (unitsTaken === 0 || !options.startWithUserMessage || startsWithUser(selected)),
  });
  return { remove: messages.filter((message) => removed.has(message.id)).map((message) => message.id), remaining: messages.length - removed.size };
}
