/**
 * required-tools-guard (SPEC.md §5.4): a turn may not end before one of `requiredTools` was called
 * successfully in it (e.g. a channel agent that must answer through `telegram__send`). When a step
 * would end the turn without such a call, the guard appends a nudge (a user message: the one role
 * every provider accepts mid-conversation) and returns `shouldContinue: true`. The engine's
 * maxStepsPerTurn still ends the turn (SPEC.md §2.7). The config plane attaches this extension
 * to every Agent with `requiredTools`.
 */
import type { ExtensionApi } from '../../../../shared/types/extensions.ts';
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { Message } from '../../../../shared/types/messages.ts';
import { readRequiredToolsGuardConfig } from './guard-config.ts';
import { succeededInConversation, succeededInSteps } from './required-call-check.ts';

/** Metadata key of a nudge message: `{ requiredTools, attempt }`. */
export const NUDGE_KEY = 'requiredToolsGuard.nudge';
/** Outer step middleware: it judges the step's final result, after inner middleware changed it. */
export const GUARD_STEP_PRIORITY = -500;

export function register(api: ExtensionApi, config: JsonObject): void {
  const options = readRequiredToolsGuardConfig(config);
  const required = new Set(options.requiredTools);
  if (required.size === 0) {
    api.logger.debug({}, 'required-tools-guard: no requiredTools configured; the guard is idle');
    return;
  }
  const list = [...required].join(', ');
  const warnedUnavailable = new Set<string>();
  const nudges = new Map<string, number>();

  api.pipeline.register(
    'step',
    async (ctx) => {
      const result = await ctx.next();
      const satisfied = () => succeededInSteps([...ctx.turn.steps, result], required) || succeededInConversation(ctx.conversationState, ctx.turn.inputEvent.id, required);
      if (result.status !== 'completed' || result.shouldContinue || satisfied()) {
        nudges.delete(ctx.turnId);
        return result;
      }
      if (!ctx.toolCatalog.some((item) => required.has(item.name)) && !warnedUnavailable.has(ctx.turnId)) {
        warnedUnavailable.add(ctx.turnId);
        api.logger.warn(
          { code: 'E_REQUIRED_TOOLS_UNAVAILABLE', requiredTools: [...required], suggestion: 'Add one of the required tools to the agent (or stop narrowing it away).' },
          `required-tools-guard: none of ${list} is in this step's tool catalog; the model cannot satisfy the guard`,
        );
      }
      const attempt = (nudges.get(ctx.turnId) ?? 0) + 1;
      nudges.set(ctx.turnId, attempt);
      ctx.emitMessageEvent({ type: 'append', message: nudgeMessage(options.errorMessage.replaceAll('{tools}', list), [...required], attempt, api.name) });
      return { ...result, shouldContinue: true, metadata: { ...result.metadata, requiredToolsGuard: { nudged: true, attempt } } };
    },
    { priority: GUARD_STEP_PRIORITY },
  );
  // Per-turn bookkeeping ends with the turn (the guard's step middleware never sees that moment).
  api.pipeline.register('turn', async (ctx) => {
    try {
      const result = await ctx.next();
      // The step limit ended the turn right after a nudge: nobody will answer it, so it goes.
      const last = ctx.conversationState.messageAt(-1);
      if (result.finishReason === 'max_steps' && last !== undefined && last.metadata[NUDGE_KEY] !== undefined) {
        ctx.emitMessageEvent({ type: 'remove', targetId: last.id });
      }
      return result;
    } finally {
      nudges.delete(ctx.turnId);
      warnedUnavailable.delete(ctx.turnId);
    }
  });
}

function nudgeMessage(text: string, requiredTools: string[], attempt: number, extensionName: string): Message {
  return {
    id: `msg_guard_${crypto.randomUUID()}`,
    data: { role: 'user', content: text },
    metadata: { [NUDGE_KEY]: { requiredTools, attempt } },
    createdAt: new Date().toISOString(),
    source: { type: 'extension', extensionName },
  };
}
