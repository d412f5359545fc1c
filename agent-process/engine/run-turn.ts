/**
 * One turn (SPEC.md §2.7): the `turn` chain around the core — append the input (or resume a
 * redelivered one), then run steps until one does not continue, fails, or `maxStepsPerTurn` is
 * reached. Async replies enter before every step. Every failure becomes `finishReason: 'error'`.
 */
import { newId } from '../../shared/ids.ts';
import { errorShape } from '../../shared/errors/index.ts';
import { isJsonObject } from '../../shared/types/json.ts';
import type { FinishReason, StepResult, TurnError, TurnResult } from '../../shared/types/turns.ts';
import { createMessage } from '../conversation/message-factory.ts';
import { messageText, pendingToolCalls } from '../conversation/message-parts.ts';
import { childSpan } from '../observability/trace-span.ts';
import { buildToolCatalog } from '../tools/tool-catalog.ts';
import { interruptedError, errorResult } from '../tools/tool-errors.ts';
import { toolResultOutput } from '../tools/tool-result-output.ts';
import type { ToolResult } from '../../shared/types/tools.ts';
import { addUsage, type EngineInternals, type TurnState } from './engine-internals.ts';
import { runStep } from './run-step.ts';
import { seedHistory } from './seed-history.ts';

/** The core of the turn chain for one turn (its state travels in the call, not in the context). */
export async function turnCore(engine: EngineInternals, turn: TurnState): Promise<TurnResult> {
  let stepIndex = 0;
  if (turn.resumeFrom) {
    stepIndex = turn.resumeFrom.stepsDone;
    await rerunPendingToolCalls(engine, turn, turn.resumeFrom.inputIndex + 1);
  } else {
    settleDanglingToolCalls(engine);
    seedHistory(engine, turn.event);
    appendInbox(engine);
    // The input is appended by the core, after turn middleware ran (SPEC.md §9.10: compaction
    // in turn middleware must not be able to delete it).
    engine.append(inputMessage(turn));
  }

  let finishReason: FinishReason = 'max_steps';
  let error: TurnError | undefined;
  while (stepIndex < engine.maxStepsPerTurn) {
    appendInbox(engine);
    const result: StepResult = await runStep(engine, turn, stepIndex);
    turn.info.steps.push(result);
    turn.tokenUsage = addUsage(turn.tokenUsage, result.tokenUsage);
    stepIndex++;
    if (result.status === 'failed') {
      finishReason = 'error';
      error = result.error ?? errorShape('E_STEP_FAILED', 'system', 'the step failed');
      break;
    }
    if (!result.shouldContinue) {
      finishReason = 'text_response';
      break;
    }
  }
  return turnResult(turn, finishReason, stepIndex, error);
}

export function turnResult(turn: TurnState, finishReason: FinishReason, stepCount: number, error?: TurnError): TurnResult {
  const result: TurnResult = {
    turnId: turn.turnId,
    traceId: turn.span.traceId,
    finishReason,
    responseText: finishReason === 'error' || !turn.lastAssistant ? '' : messageText(turn.lastAssistant.data),
    stepCount,
  };
  if (turn.lastAssistant) result.responseMessage = turn.lastAssistant;
  if (turn.tokenUsage) result.tokenUsage = turn.tokenUsage;
  if (error) result.error = error;
  return result;
}

function inputMessage(turn: TurnState) {
  const event = turn.event;
  return createMessage(
    { role: 'user', content: event.input ?? '' },
    { type: 'user' },
    { eventId: event.id, eventType: event.type, turnId: turn.turnId, traceId: turn.span.traceId },
  );
}

function appendInbox(engine: EngineInternals): void {
  for (const message of engine.inbox.drain()) engine.append(message);
}

/**
 * Tool calls left without results by an earlier turn (it failed between the model call and its
 * tools) would make every provider reject the history: answer them as interrupted first.
 */
function settleDanglingToolCalls(engine: EngineInternals): void {
  const conversation = engine.conversation;
  const recent = conversation.messagesFrom(conversation.lastIndexOfRole('user'));
  for (const { call } of pendingToolCalls(recent)) {
    const result = errorResult(call.toolCallId, call.toolName, interruptedError(call.toolName));
    engine.append(toolMessage(result));
  }
}

/** Redelivery: tool calls of the crashed turn that have no result are run again (ARCHITECTURE §3). */
async function rerunPendingToolCalls(engine: EngineInternals, turn: TurnState, from: number): Promise<void> {
  const pending = pendingToolCalls(engine.conversation.messagesFrom(from));
  if (pending.length === 0) return;
  const catalog = buildToolCatalog(engine.registry);
  const span = childSpan(turn.span);
  const results = await Promise.all(
    pending.map(({ call, message }) =>
      engine.toolRunner.run({
        call: { id: call.toolCallId, name: call.toolName, args: isJsonObject(call.input) ? call.input : {} },
        ...(isJsonObject(call.input) ? {} : { argsError: 'arguments must be a JSON object' }),
        catalog,
        message,
        turnId: turn.turnId,
        stepId: message.source.type === 'assistant' ? message.source.stepId : newId('step'),
        stepIndex: Math.max(0, (turn.resumeFrom?.stepsDone ?? 1) - 1),
        stepSpan: span,
      }),
    ),
  );
  for (const result of results) engine.append(toolMessage(result));
}

function toolMessage(result: ToolResult) {
  return createMessage(
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: result.toolCallId, toolName: result.toolName, output: toolResultOutput(result) }] },
    { type: 'tool', toolCallId: result.toolCallId, toolName: result.toolName },
  );
}

