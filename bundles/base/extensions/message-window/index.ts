/**
 * message-window (SPEC.md §5.4): keeps the conversation to the newest `maxMessages` messages by
 * emitting `remove` events (the engine's arrays are never touched) — before every model call, so
 * the model never sees more, and once more when the turn ends, so the stored history stays
 * bounded too. Tool calls stay with their results; pinned messages, the system prompt of
 * context-message and the current turn's input always stay (message-integrity.ts).
 */
import type { ExtensionApi, StepMiddlewareContext, TurnMiddlewareContext } from '../../../../shared/types/extensions.ts';
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { Logger } from '../../../../shared/types/tools.ts';
import { planWindow } from './window-plan.ts';
import { readMessageWindowConfig, type MessageWindowConfig } from './window-config.ts';

/** Innermost step middleware: the window is applied after every other extension added its messages. */
export const WINDOW_STEP_PRIORITY = 1000;
/** Outermost turn middleware: its after-part runs last, just before the engine folds the turn. */
export const WINDOW_TURN_PRIORITY = -1000;

export function register(api: ExtensionApi, config: JsonObject): void {
  const options = readMessageWindowConfig(config);
  const warned = new Set<string>();
  api.pipeline.register(
    'step',
    (ctx) => {
      applyWindow(ctx, ctx.turn.inputEvent.id, options, api.logger, warned);
      return ctx.next();
    },
    { priority: WINDOW_STEP_PRIORITY },
  );
  api.pipeline.register(
    'turn',
    async (ctx) => {
      try {
        const result = await ctx.next();
        applyWindow(ctx, ctx.inputEvent.id, options, api.logger, warned);
        return result;
      } finally {
        warned.delete(ctx.turnId);
      }
    },
    { priority: WINDOW_TURN_PRIORITY },
  );
}

function applyWindow(
  ctx: Pick<StepMiddlewareContext | TurnMiddlewareContext, 'conversationState' | 'emitMessageEvent' | 'turnId'>,
  inputEventId: string,
  options: MessageWindowConfig,
  logger: Logger,
  warned: Set<string>,
): void {
  const messages = ctx.conversationState.nextMessages;
  if (messages.length <= options.maxMessages) return;
  const plan = planWindow(messages, { ...options, inputEventId });
  for (const id of plan.remove) ctx.emitMessageEvent({ type: 'remove', targetId: id });
  if (plan.remove.length > 0) logger.debug({ removed: plan.remove.length, remaining: plan.remaining }, 'message-window dropped the oldest messages');
  if (plan.remaining > options.maxMessages && !warned.has(ctx.turnId)) {
    warned.add(ctx.turnId);
    logger.warn(
      {
        code: 'E_WINDOW_LIMIT_UNREACHABLE',
        maxMessages: options.maxMessages,
        remaining: plan.remaining,
        suggestion: 'Raise maxMessages, pin fewer messages, or use fewer tool calls per turn.',
      },
      `message-window: ${plan.remaining} messages remain, more than maxMessages ${options.maxMessages}; the rest is pinned, the current input or part of a tool call still needed`,
    );
  }
}
