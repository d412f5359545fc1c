/**
 * OpenTelemetry spans of an agent, made from its runtime events: every completion event carries
 * its span's ids and duration, so each becomes one span when it happens — turn
 * (`invoke_agent`), step, model call (`chat`, a child of its step, from step.completed) and tool
 * call (`execute_tool`) — with the GenAI semantic-convention attributes and goondan's own.
 */
import { newSpanId } from '../../shared/ids.ts';
import type { ModelPlan } from '../../shared/types/bundle.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import type { FinishedSpan, SpanAttributes } from '../../shared/telemetry/finished-span.ts';

export interface SpanIdentity {
  agent: string;
  instanceKey: string;
  model: ModelPlan;
}

export function spansOfRuntimeEvent(event: RuntimeEvent, who: SpanIdentity): FinishedSpan[] {
  const end = Date.parse(event.timestamp);
  const base = {
    traceId: event.traceId,
    spanId: event.spanId,
    ...(event.parentSpanId ? { parentSpanId: event.parentSpanId } : {}),
    endTime: end,
  };
  const common: SpanAttributes = { 'gen_ai.agent.name': who.agent, 'goondan.agent': who.agent, 'goondan.instance_key': who.instanceKey };
  switch (event.type) {
    case 'turn.completed':
    case 'turn.failed':
      return [
        {
          ...base,
          name: `invoke_agent ${who.agent}`,
          kind: 'internal',
          startTime: end - event.duration,
          attributes: {
            ...common,
            'gen_ai.operation.name': 'invoke_agent',
            'goondan.turn_id': event.turnId,
            'goondan.step_count': event.stepCount,
            ...(event.type === 'turn.completed' ? usageAttributes(event.tokenUsage, event.cost) : {}),
          },
          ...(event.type === 'turn.failed' ? { error: `${event.error.code}: ${event.error.message}` } : {}),
        },
      ];
    case 'step.completed': {
      const step: FinishedSpan = {
        ...base,
        name: `step ${event.stepIndex}`,
        kind: 'internal',
        startTime: end - event.duration,
        attributes: { ...common, 'goondan.turn_id': event.turnId, 'goondan.step_id': event.stepId, 'goondan.step_index': event.stepIndex },
      };
      if (event.modelStartedAt === undefined || event.modelDuration === undefined) return [step];
      const modelStart = Date.parse(event.modelStartedAt);
      return [step, modelSpan(event.traceId, event.spanId, modelStart, modelStart + event.modelDuration, who, { ...common, ...usageAttributes(event.tokenUsage, event.cost) })];
    }
    case 'step.failed':
      return [
        {
          ...base,
          name: `step ${event.stepIndex}`,
          kind: 'internal',
          startTime: end - event.duration,
          attributes: { ...common, 'goondan.turn_id': event.turnId, 'goondan.step_id': event.stepId, 'goondan.step_index': event.stepIndex },
          error: `${event.error.code}: ${event.error.message}`,
        },
      ];
    case 'tool.completed':
    case 'tool.failed': {
      const error = event.type === 'tool.failed' ? event.error : event.status === 'error' ? event.error : undefined;
      return [
        {
          ...base,
          name: `execute_tool ${event.toolName}`,
          kind: 'internal',
          startTime: end - event.duration,
          attributes: { ...common, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': event.toolName, 'gen_ai.tool.call.id': event.toolCallId, 'goondan.step_id': event.stepId },
          ...(error ? { error: `${error.code}: ${error.message}` } : {}),
        },
      ];
    }
    default:
      return [];
  }
}

function modelSpan(traceId: string, stepSpanId: string, start: number, end: number, who: SpanIdentity, attributes: SpanAttributes): FinishedSpan {
  return {
    name: `chat ${who.model.model}`,
    kind: 'client',
    traceId,
    spanId: newSpanId(),
    parentSpanId: stepSpanId,
    startTime: start,
    endTime: end,
    attributes: {
      ...attributes,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': who.model.provider,
      'gen_ai.system': who.model.provider,
      'gen_ai.request.model': who.model.model,
      'goondan.model': who.model.name,
    },
  };
}

function usageAttributes(usage: { promptTokens: number; completionTokens: number } | undefined, cost: { amount: number; currency: string } | undefined): SpanAttributes {
  return {
    ...(usage ? { 'gen_ai.usage.input_tokens': usage.promptTokens, 'gen_ai.usage.output_tokens': usage.completionTokens } : {}),
    ...(cost ? { 'goondan.cost.amount': cost.amount, 'goondan.cost.currency': cost.currency } : {}),
  };
}
