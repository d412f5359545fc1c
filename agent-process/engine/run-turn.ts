/**
 * One turn (SPEC.md §2.7): the `turn` chain around the core — append the input (or resume a
 * redelivered one), then run steps until one does not continue, fails, or `maxStepsPerTurn` is
 * reached. Async replies enter before every step. Every failure becomes `finishReason: 'error'`.
 */
import { errorShape } from '../../shared/errors/index.ts';
import type { FinishReason, StepResult, TurnError, TurnResult } from '../../shared/types/turns.ts';
import { createMessage } from '../conversation/message-factory.ts';
import { messageText } from '../conversation/message-parts.ts';
import { addUsage, type EngineInternals, type TurnState } from './engine-internals.ts';
import { resumePendingToolCalls, settleDanglingToolCalls } from './resume-tool-calls.ts';
import { runStep } from './run-step.ts';
import { seedHistory } from './seed-history.ts';

/** The core of the turn chain for one turn (its state travels in the call, not in the context). */
export async function turnCore(engine: EngineInternals, turn: TurnState): Promise<TurnResult> {
  let stepIndex = 0;
  if (turn.resumeFrom) {
    stepIndex = turn.resumeFrom.stepsDone;
    await resumePendingToolCalls(engine, turn, turn.resumeFrom.inputIndex + 1);
  } else {
    settleDanglingToolCalls(engine);
    // Whatever the journal still holds belongs to a turn that is over (its calls are settled now).
    engine.journal.clear();
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
  engine.inbox.drain((message) => engine.append(message));
}
