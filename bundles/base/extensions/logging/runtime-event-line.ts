/**
 * One log line per runtime event (SPEC.md §3.2): which level, which message, which fields. Trace
 * and span ids are on every line so a log can be joined with runtime-events.jsonl; tool arguments
 * appear only when configured, and then redacted.
 */
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { RuntimeEvent } from '../../../../shared/types/turns.ts';
import type { LoggingConfig, LogLevel } from './logging-config.ts';
import { redactArgs } from './redact-args.ts';

export interface LogLine {
  level: LogLevel;
  fields: Record<string, unknown>;
  message: string;
}

export function runtimeEventLine(event: RuntimeEvent, config: LoggingConfig): LogLine {
  const trace = { event: event.type, traceId: event.traceId, spanId: event.spanId, ...(event.parentSpanId ? { parentSpanId: event.parentSpanId } : {}) };
  const progress = config.level;
  switch (event.type) {
    case 'turn.started':
      return { level: progress, fields: { ...trace, turnId: event.turnId, eventId: event.eventId }, message: 'turn started' };
    case 'turn.completed':
      return {
        level: progress,
        fields: { ...trace, turnId: event.turnId, stepCount: event.stepCount, durationMs: event.duration, finishReason: event.finishReason, ...usage(event.tokenUsage) },
        message: `turn completed in ${ms(event.duration)} (${event.stepCount} ${event.stepCount === 1 ? 'step' : 'steps'}, ${event.finishReason})`,
      };
    case 'turn.failed':
      return {
        level: 'error',
        fields: { ...trace, turnId: event.turnId, stepCount: event.stepCount, durationMs: event.duration, error: event.error },
        message: `turn failed after ${ms(event.duration)}: ${event.error.code}: ${event.error.message}`,
      };
    case 'step.started':
      return { level: progress, fields: { ...trace, turnId: event.turnId, stepId: event.stepId, stepIndex: event.stepIndex }, message: `step ${event.stepIndex} started` };
    case 'step.completed':
      return {
        level: progress,
        fields: {
          ...trace,
          turnId: event.turnId,
          stepId: event.stepId,
          stepIndex: event.stepIndex,
          toolCallCount: event.toolCallCount,
          durationMs: event.duration,
          ...(event.modelDuration !== undefined ? { modelDurationMs: event.modelDuration } : {}),
          ...usage(event.tokenUsage),
        },
        message: `step ${event.stepIndex} completed in ${ms(event.duration)} (${event.toolCallCount} tool ${event.toolCallCount === 1 ? 'call' : 'calls'})`,
      };
    case 'step.delta':
      // Not subscribed by default (one per streamed chunk); an extension may still format one.
      return { level: 'debug', fields: { ...trace, turnId: event.turnId, stepId: event.stepId, stepIndex: event.stepIndex, characters: event.text.length }, message: `step ${event.stepIndex} streamed text` };
    case 'step.failed':
      return {
        level: 'error',
        fields: { ...trace, turnId: event.turnId, stepId: event.stepId, stepIndex: event.stepIndex, durationMs: event.duration, error: event.error },
        message: `step ${event.stepIndex} failed after ${ms(event.duration)}: ${event.error.code}: ${event.error.message}`,
      };
    case 'tool.called': {
      const fields: Record<string, unknown> = { ...trace, turnId: event.turnId, stepId: event.stepId, toolCallId: event.toolCallId, toolName: event.toolName };
      if (config.includeToolArgs && event.args !== undefined) fields.args = redactArgs(event.args, config.maxArgCharacters);
      if (event.summary !== undefined) fields.summary = event.summary;
      return { level: progress, fields, message: `tool ${event.toolName} called${event.summary !== undefined ? `: ${event.summary}` : ''}` };
    }
    case 'tool.completed':
      return {
        level: event.status === 'error' ? 'warn' : progress,
        fields: {
          ...trace,
          turnId: event.turnId,
          stepId: event.stepId,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          status: event.status,
          durationMs: event.duration,
          ...(event.error !== undefined ? { error: event.error } : {}),
        },
        message:
          event.status === 'error'
            ? `tool ${event.toolName} returned an error${event.error ? ` (${event.error.code})` : ''} after ${ms(event.duration)}`
            : `tool ${event.toolName} completed in ${ms(event.duration)} (${event.status})`,
      };
    case 'tool.failed':
      return {
        level: 'error',
        fields: { ...trace, turnId: event.turnId, stepId: event.stepId, toolCallId: event.toolCallId, toolName: event.toolName, durationMs: event.duration, error: event.error },
        message: `tool ${event.toolName} failed after ${ms(event.duration)}: ${event.error.code}: ${event.error.message}`,
      };
  }
}

function usage(tokenUsage: { promptTokens: number; completionTokens: number; totalTokens: number } | undefined): JsonObject {
  return tokenUsage ? { tokenUsage: { ...tokenUsage } } : {};
}

function ms(duration: number): string {
  return `${Math.round(duration)} ms`;
}
