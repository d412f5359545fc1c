/**
 * Tool calls a crash left without results (issue 10: effects at most once). The tool-call journal
 * decides for each: finished → its recorded result, never a second run; never started → run now
 * (nothing happened yet); started but unfinished → run again only when its export is idempotent,
 * otherwise E_TOOL_INTERRUPTED for the model to decide.
 */
import { newId } from '../../shared/ids.ts';
import { isJsonObject } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { ToolResult } from '../../shared/types/tools.ts';
import { createMessage } from '../conversation/message-factory.ts';
import { pendingToolCalls, type ToolCallRef } from '../conversation/message-parts.ts';
import { childSpan, type Span, spanFields } from '../observability/trace-span.ts';
import { usageFacts } from '../observability/usage-facts.ts';
import { buildToolCatalog } from '../tools/tool-catalog.ts';
import { errorResult, interruptedError, interruptedByCrashError } from '../tools/tool-errors.ts';
import { toolResultOutput } from '../tools/tool-result-output.ts';
import { addUsage, type EngineInternals, type TurnState } from './engine-internals.ts';
import { keptUsage } from './step-usage.ts';

/** Redelivery of `turn`: its pending tool calls from conversation index `from` on. */
export async function resumePendingToolCalls(engine: EngineInternals, turn: TurnState, from: number): Promise<void> {
  const pending = pendingToolCalls(engine.conversation.messagesFrom(from));
  if (pending.length === 0) return;
  const catalog = buildToolCatalog(engine.registry);
  const span = childSpan(turn.span);
  const results = await Promise.all(
    pending.map(({ call, message }) => {
      const settled = settledByJournal(engine, call, message);
      if (settled) return settled;
      return engine.toolRunner.run({
        call: { id: call.toolCallId, name: call.toolName, args: isJsonObject(call.input) ? call.input : {} },
        ...(isJsonObject(call.input) ? {} : { argsError: 'arguments must be a JSON object' }),
        catalog,
        message,
        turnId: turn.turnId,
        stepId: message.source.type === 'assistant' ? message.source.stepId : newId('step'),
        stepIndex: Math.max(0, (turn.resumeFrom?.stepsDone ?? 1) - 1),
        stepSpan: span,
      });
    }),
  );
  for (const result of results) engine.append(toolResultMessage(result));
  reportCutSteps(engine, turn, pending.map(({ message }) => message), span);
}

/**
 * The steps whose tool calls were cut end now: reported with the model usage their messages kept
 * (the process that made the call never reported it), and counted in the turn's usage.
 */
function reportCutSteps(engine: EngineInternals, turn: TurnState, messages: Message[], span: Span): void {
  for (const message of new Set(messages)) {
    if (message.source.type !== 'assistant') continue;
    const usage = keptUsage(message.metadata);
    turn.tokenUsage = addUsage(turn.tokenUsage, usage);
    engine.events.emit({
      type: 'step.completed',
      timestamp: new Date().toISOString(),
      ...spanFields(span),
      agentName: engine.plan.name,
      instanceKey: engine.instanceKey,
      turnId: turn.turnId,
      stepId: message.source.stepId,
      stepIndex: Math.max(0, (turn.resumeFrom?.stepsDone ?? 1) - 1),
      toolCallCount: pendingToolCalls([message]).length,
      // From the model call's message to now: the step's wall time, the cut included.
      duration: Math.max(0, Date.now() - Date.parse(message.createdAt)),
      ...(usage ? { tokenUsage: usage } : {}),
      ...usageFacts(engine.plan.model, usage),
    });
  }
}

/**
 * Tool calls left without results by an earlier turn (it failed between the model call and its
 * tools) would make every provider reject the history: answer them before a new input — with the
 * journal's result when the call had finished, as interrupted otherwise. Nothing runs here.
 */
export function settleDanglingToolCalls(engine: EngineInternals): void {
  const conversation = engine.conversation;
  const recent = conversation.messagesFrom(conversation.lastIndexOfRole('user'));
  for (const { call, message } of pendingToolCalls(recent)) {
    const known = engine.journal.lookup(message.id, call.toolCallId);
    const result = known.state === 'finished' ? known.result : errorResult(call.toolCallId, call.toolName, interruptedError(call.toolName));
    engine.append(toolResultMessage(result));
  }
}

/** The journal's answer for a pending call, or undefined when the call must (and may) run. */
function settledByJournal(engine: EngineInternals, call: ToolCallRef, message: Message): ToolResult | undefined {
  const known = engine.journal.lookup(message.id, call.toolCallId);
  if (known.state === 'finished') {
    engine.logger.info({ toolCallId: call.toolCallId, toolName: call.toolName }, 'resumed turn: reusing the recorded result of a finished tool call');
    return known.result;
  }
  if (known.state === 'unknown') return undefined; // its handler never started
  if (engine.registry.get(call.toolName)?.item.idempotent === true) {
    engine.logger.info({ toolCallId: call.toolCallId, toolName: call.toolName }, 'resumed turn: running an interrupted idempotent tool call again');
    return undefined;
  }
  engine.logger.warn({ code: 'E_TOOL_INTERRUPTED', toolCallId: call.toolCallId, toolName: call.toolName }, 'resumed turn: a non-idempotent tool call was interrupted; not run again');
  return errorResult(call.toolCallId, call.toolName, interruptedByCrashError(call.toolName));
}

export function toolResultMessage(result: ToolResult): Message {
  return createMessage(
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: result.toolCallId, toolName: result.toolName, output: toolResultOutput(result) }] },
    { type: 'tool', toolCallId: result.toolCallId, toolName: result.toolName },
  );
}
