/**
 * message-compaction (SPEC.md §5.4): once the conversation passes maxMessages or maxCharacters,
 * older messages are removed (or, in `truncate` mode, first shortened) and ONE counts-only summary
 * message records what went — no model is asked to summarise. Runs before every model call and once
 * more when the turn ends (so the stored history is bounded too), only through MessageEvents.
 * Tool calls stay with their results; pinned messages, the system prompt and the current input stay.
 */
import type { ExtensionApi, StepMiddlewareContext, TurnMiddlewareContext } from '../../../../shared/types/extensions.ts';
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { Logger } from '../../../../shared/types/tools.ts';
import { planCompaction } from './compaction-plan.ts';
import { readMessageCompactionConfig, type MessageCompactionConfig } from './compaction-config.ts';

/** Innermost step middleware: compaction sees every message other extensions added for this step. */
export const COMPACTION_STEP_PRIORITY = 1000;
/** Outermost turn middleware: its after-part runs last, just before the engine folds the turn. */
export const COMPACTION_TURN_PRIORITY = -1000;

export function register(api: ExtensionApi, config: JsonObject): void {
  const options = readMessageCompactionConfig(config);
  const warned = new Set<string>();
  const compact = (ctx: CompactionContext, inputEventId: string): void => applyCompaction(ctx, inputEventId, options, api.name, api.logger, warned);
  api.pipeline.register(
    'step',
    (ctx) => {
      compact(ctx, ctx.turn.inputEvent.id);
      return ctx.next();
    },
    { priority: COMPACTION_STEP_PRIORITY },
  );
  api.pipeline.register(
    'turn',
    async (ctx) => {
      try {
        const result = await ctx.next();
        compact(ctx, ctx.inputEvent.id);
        return result;
      } finally {
        warned.delete(ctx.turnId);
      }
    },
    { priority: COMPACTION_TURN_PRIORITY },
  );
}

type CompactionContext = Pick<StepMiddlewareContext | TurnMiddlewareContext, 'conversationState' | 'emitMessageEvent' | 'turnId'>;

function applyCompaction(
  ctx: CompactionContext,
  inputEventId: string,
  config: MessageCompactionConfig,
  extensionName: string,
  logger: Logger,
  warned: Set<string>,
): void {
  const plan = planCompaction(ctx.conversationState.nextMessages, { config, inputEventId, extensionName });
  if (plan === undefined) return;
  for (const event of plan.events) ctx.emitMessageEvent(event);
  if (plan.events.length > 0) {
    logger.debug({ removed: plan.removed, shortened: plan.shortened, messages: plan.after.messages, characters: plan.after.characters }, 'message-compaction compacted the conversation');
  }
  if (plan.overLimit && !warned.has(ctx.turnId)) {
    warned.add(ctx.turnId);
    logger.warn(
      {
        code: 'E_COMPACTION_LIMIT_UNREACHABLE',
        maxMessages: config.maxMessages,
        maxCharacters: config.maxCharacters,
        messages: plan.after.messages,
        characters: plan.after.characters,
        suggestion: 'Raise the limits, lower retainLastMessages, shorten the system prompt or pin fewer messages.',
      },
      `message-compaction: the conversation stays over its limits (${plan.after.messages} messages, ${plan.after.characters} characters); what is left is retained, pinned or the current input`,
    );
  }
}
