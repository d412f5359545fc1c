/**
 * One step (SPEC.md §2.7): the `step` chain around the core — model call with the step's catalog,
 * append the assistant message, run its tool calls through the `toolCall` chain (concurrently;
 * results appended in call order), `shouldContinue = toolCalls.length > 0`. A model error is a
 * failed StepResult, never an exception.
 */
import { newId } from '../../shared/ids.ts';
import type { StepMiddlewareContext } from '../../shared/types/extensions.ts';
import { isJsonObject } from '../../shared/types/json.ts';
import type { ToolCatalogItem, ToolResult } from '../../shared/types/tools.ts';
import type { RuntimeEvent, StepResult } from '../../shared/types/turns.ts';
import { createMessage } from '../conversation/message-factory.ts';
import { modelCallError } from '../models/model-error.ts';
import { TextDeltaCoalescer } from '../observability/text-delta-coalescer.ts';
import { childSpan, spanFields, type Span } from '../observability/trace-span.ts';
import { buildToolCatalog } from '../tools/tool-catalog.ts';
import { callModel } from './call-model.ts';
import { gatedModelCall } from './model-gate.ts';
import { errorShape } from '../../shared/errors/index.ts';
import { usageFacts } from '../observability/usage-facts.ts';
import { usageMetadata } from './step-usage.ts';
import { runChain } from './chain-runner.ts';
import { toolResultMessage } from './resume-tool-calls.ts';
import type { EngineInternals, TurnState } from './engine-internals.ts';

interface StepExtras {
  turn: TurnState;
  stepId: string;
  span: Span;
}

async function stepCore(engine: EngineInternals, ctx: StepMiddlewareContext, extras: StepExtras): Promise<StepResult> {
  const catalog = sanitizeCatalog(ctx.toolCatalog);
  const deltas = new TextDeltaCoalescer((text) => engine.events.stream(deltaEvent(engine, extras, ctx.stepIndex, text)));
  let answer;
  let modelStartedAt = 0;
  try {
    const view = engine.conversation.modelView();
    const prompt = engine.prompt.convert(view.messages, view.revision, view.patched);
    const gated = { traceId: extras.span.traceId, stepId: extras.stepId, messages: view.messages };
    answer = await gatedModelCall(engine.modelGate, engine.plan.model, gated, () => {
      modelStartedAt = Date.now(); // after any admission wait: the model call's own span starts here
      return callModel(engine.model, prompt, catalog, { onTextDelta: (text) => deltas.push(text) });
    });
  } catch (error) {
    return failedStep(await modelCallError(engine.model.name, error));
  } finally {
    // Streamed text reaches observers before the step's completion (and the turn's reply).
    deltas.flush();
  }

  if (answer.warnings.length > 0) engine.logger.warn({ code: 'W_MODEL_WARNING', model: engine.model.name, warnings: answer.warnings }, 'the model call returned warnings');
  const metadata: StepResult['metadata'] = { modelDurationMs: answer.durationMs, modelStartedAt, finishReason: answer.finishReason };
  const repairs = answer.toolCalls.filter((c) => c.repairs !== undefined).map((c) => ({ toolCallId: c.call.id, repairs: c.repairs ?? [] }));
  const assistant = answer.assistant
    ? createMessage(answer.assistant, { type: 'assistant', stepId: extras.stepId }, { ...(repairs.length > 0 ? { argsRepaired: repairs } : {}), ...usageMetadata(answer.usage) })
    : undefined;
  if (assistant) {
    engine.append(assistant);
    extras.turn.lastAssistant = assistant;
  }

  let toolResults: ToolResult[] = [];
  if (assistant && answer.toolCalls.length > 0) {
    toolResults = await Promise.all(
      answer.toolCalls.map((toolCall) =>
        engine.toolRunner.run({
          call: toolCall.call,
          ...(toolCall.argsError !== undefined ? { argsError: toolCall.argsError } : {}),
          catalog,
          message: assistant,
          turnId: extras.turn.turnId,
          stepId: extras.stepId,
          stepIndex: ctx.stepIndex,
          stepSpan: extras.span,
        }),
      ),
    );
    for (const result of toolResults) {
      engine.append(toolResultMessage(result));
      noticeRestartRequest(engine, result);
    }
  }

  const toolCalls = answer.toolCalls.map((c) => c.call);
  return {
    status: 'completed',
    shouldContinue: toolCalls.length > 0,
    toolCalls,
    toolResults,
    text: answer.text,
    ...(answer.usage ? { tokenUsage: answer.usage } : {}),
    metadata,
  };
}

/** Runs step `stepIndex` of a turn through the step chain and reports step.* events. */
export async function runStep(engine: EngineInternals, turn: TurnState, stepIndex: number): Promise<StepResult> {
  const stepId = newId('step');
  const span = childSpan(turn.span);
  turn.currentSpan = span;
  const common = { agentName: engine.plan.name, instanceKey: engine.instanceKey, turnId: turn.turnId, stepId, stepIndex };

  const ctx: StepMiddlewareContext = {
    agentName: engine.plan.name,
    instanceKey: engine.instanceKey,
    turnId: turn.turnId,
    traceId: span.traceId,
    turn: turn.info,
    stepIndex,
    conversationState: engine.conversation,
    agents: turn.agents,
    runtime: turn.runtime,
    emitMessageEvent: (event) => engine.emitMessageEvent(event),
    toolCatalog: buildToolCatalog(engine.registry),
    metadata: {},
    next: () => Promise.reject(new Error('next() of the step core context is not callable')),
  };
  const extras: StepExtras = { turn, stepId, span };

  return runChain(engine.pipeline, 'step', {
    ctx,
    core: (final) => stepCore(engine, final, extras),
    span,
    accept: (value) => (isStepResult(value) ? value : undefined),
    failed: failedStep,
    started: () => engine.events.emit({ type: 'step.started', timestamp: new Date().toISOString(), ...spanFields(span), ...common }),
    finished: (result, duration) => {
      const timestamp = new Date().toISOString();
      if (result.status === 'failed') {
        const error = result.error ?? errorShape('E_STEP_FAILED', 'system', 'step failed');
        engine.events.emit({ type: 'step.failed', timestamp, ...spanFields(span), ...common, duration, error });
        return;
      }
      const modelDuration = result.metadata.modelDurationMs;
      const modelStartedAt = result.metadata.modelStartedAt;
      engine.events.emit({
        type: 'step.completed',
        timestamp,
        ...spanFields(span),
        ...common,
        toolCallCount: result.toolCalls.length,
        duration,
        ...(typeof modelDuration === 'number' ? { modelDuration } : {}),
        ...(typeof modelStartedAt === 'number' && modelStartedAt > 0 ? { modelStartedAt: new Date(modelStartedAt).toISOString() } : {}),
        ...(result.tokenUsage ? { tokenUsage: result.tokenUsage } : {}),
        ...usageFacts(engine.plan.model, result.tokenUsage),
      });
    },
  });
}

function deltaEvent(engine: EngineInternals, extras: StepExtras, stepIndex: number, text: string): RuntimeEvent {
  return {
    type: 'step.delta',
    timestamp: new Date().toISOString(),
    ...spanFields(extras.span),
    agentName: engine.plan.name,
    agent: engine.plan.name,
    instanceKey: engine.instanceKey,
    turnId: extras.turn.turnId,
    stepId: extras.stepId,
    stepIndex,
    text,
  };
}

function failedStep(error: NonNullable<StepResult['error']>): StepResult {
  return { status: 'failed', shouldContinue: false, toolCalls: [], toolResults: [], text: '', metadata: {}, error };
}

/** Step middleware may replace the catalog; keep only well-formed items (names are what the gate checks). */
function sanitizeCatalog(catalog: unknown): ToolCatalogItem[] {
  if (!Array.isArray(catalog)) return [];
  const seen = new Set<string>();
  const out: ToolCatalogItem[] = [];
  for (const item of catalog) {
    if (typeof item !== 'object' || item === null || typeof item.name !== 'string' || seen.has(item.name)) continue;
    seen.add(item.name);
    out.push(item);
  }
  return out;
}

function isStepResult(value: unknown): value is StepResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    'status' in value &&
    (value.status === 'completed' || value.status === 'failed') &&
    'shouldContinue' in value &&
    typeof value.shouldContinue === 'boolean' &&
    'toolCalls' in value &&
    Array.isArray(value.toolCalls) &&
    'metadata' in value &&
    typeof value.metadata === 'object'
  );
}

/** SPEC.md §2.8 [ref]: a tool result `{restartRequested|runtimeRestart|__goondanRestart: true}` asks for a restart. */
function noticeRestartRequest(engine: EngineInternals, result: ToolResult): void {
  if (result.status !== 'ok' || !isJsonObject(result.output) || !engine.onRestartRequested) return;
  const output = result.output;
  if (output.restartRequested === true || output.runtimeRestart === true || output.__goondanRestart === true) {
    const reason = typeof output.restartReason === 'string' ? output.restartReason : `requested by ${result.toolName}`;
    engine.onRestartRequested(reason);
  }
}
