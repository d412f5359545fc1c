/** A writer → reviewer trace as the demo bundle writes it (shape of runtime-events.jsonl). */
import type { RuntimeEvent } from '../../shared/types/turns.ts';

export const TRACE = 'f6576104dda9687a55a28967516864f8';
const base = (agentName: string, spanId: string, parentSpanId?: string) => ({
  traceId: TRACE,
  agentName,
  instanceKey: 'default',
  spanId,
  ...(parentSpanId ? { parentSpanId } : {}),
});
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0, ms)).toISOString();

export const demoTrace: RuntimeEvent[] = [
  { type: 'turn.started', timestamp: at(0), ...base('writer', 'w-turn'), turnId: 't1', eventId: 'e1' },
  { type: 'step.started', timestamp: at(10), ...base('writer', 'w-step0', 'w-turn'), turnId: 't1', stepId: 's0', stepIndex: 0 },
  { type: 'tool.called', timestamp: at(150), ...base('writer', 'w-tool', 'w-step0'), turnId: 't1', stepId: 's0', toolCallId: 'c1', toolName: 'agents__request', args: { target: 'reviewer', input: 'review this' } },
  { type: 'turn.started', timestamp: at(200), ...base('reviewer', 'r-turn', 'w-tool'), turnId: 't2', eventId: 'e2' },
  { type: 'step.started', timestamp: at(210), ...base('reviewer', 'r-step0', 'r-turn'), turnId: 't2', stepId: 's1', stepIndex: 0 },
  { type: 'step.completed', timestamp: at(400), ...base('reviewer', 'r-step0', 'r-turn'), turnId: 't2', stepId: 's1', stepIndex: 0, toolCallCount: 0, duration: 190, modelDuration: 180, tokenUsage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 } },
  { type: 'turn.completed', timestamp: at(410), ...base('reviewer', 'r-turn', 'w-tool'), turnId: 't2', stepCount: 1, duration: 210, finishReason: 'text_response', tokenUsage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 } },
  { type: 'tool.completed', timestamp: at(420), ...base('writer', 'w-tool', 'w-step0'), turnId: 't1', stepId: 's0', toolCallId: 'c1', toolName: 'agents__request', status: 'ok', duration: 270 },
  { type: 'step.completed', timestamp: at(421), ...base('writer', 'w-step0', 'w-turn'), turnId: 't1', stepId: 's0', stepIndex: 0, toolCallCount: 1, duration: 411, modelDuration: 140 },
  { type: 'step.started', timestamp: at(422), ...base('writer', 'w-step1', 'w-turn'), turnId: 't1', stepId: 's2', stepIndex: 1 },
  { type: 'step.completed', timestamp: at(600), ...base('writer', 'w-step1', 'w-turn'), turnId: 't1', stepId: 's2', stepIndex: 1, toolCallCount: 0, duration: 178, modelDuration: 170 },
  { type: 'turn.completed', timestamp: at(610), ...base('writer', 'w-turn'), turnId: 't1', stepCount: 2, duration: 610, finishReason: 'text_response' },
];
