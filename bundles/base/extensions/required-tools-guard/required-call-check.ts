/**
 * Did a required tool succeed in this turn? The step results of the turn say so directly; the
 * conversation says so too, which matters when a turn is resumed after a crash (its earlier steps
 * are then not in `ctx.turn.steps`, but their tool messages are after the turn's input) — without
 * it a channel agent would send its message a second time.
 */
import type { ConversationState, Message } from '../../../../shared/types/messages.ts';
import type { StepResult } from '../../../../shared/types/turns.ts';

export function succeededInSteps(steps: readonly StepResult[], required: ReadonlySet<string>): boolean {
  return steps.some((step) => step.toolResults.some((result) => result.status === 'ok' && required.has(result.toolName)));
}

/**
 * A tool message after the turn's input holding an ok result of a required tool. Read from the
 * end back to the input (the turn's own messages), so the cost does not grow with the history.
 */
export function succeededInConversation(conversation: Pick<ConversationState, 'messageCount' | 'messageAt'>, inputEventId: string, required: ReadonlySet<string>): boolean {
  let succeeded = false;
  for (let at = conversation.messageCount - 1; at >= 0; at--) {
    const message = conversation.messageAt(at);
    if (message === undefined) break;
    if (message.source.type === 'user' && message.metadata.eventId === inputEventId) return succeeded;
    succeeded ||= holdsOkResultOf(message, required);
  }
  return false;
}

function holdsOkResultOf(message: Message, required: ReadonlySet<string>): boolean {
  if (message.data.role !== 'tool') return false;
  for (const part of message.data.content) {
    if (part.type !== 'tool-result' || !required.has(part.toolName)) continue;
    const output = part.output;
    if (output.type === 'text' || (output.type === 'json' && !isEngineStatus(output.value))) return true;
  }
  return false;
}

/** How the engine stores error and pending results: `{status: 'error' | 'pending', …}` as JSON. */
function isEngineStatus(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'status' in value && (value.status === 'error' || value.status === 'pending');
}
