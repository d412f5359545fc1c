import { describe, expect, test } from 'bun:test';
import { buildSpanTree, flattenSpans } from '../../studio/src/model/span-tree.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { demoTrace, TRACE } from './trace-events.ts';

const rows = (events: RuntimeEvent[], now?: number) => flattenSpans(buildSpanTree(events, now).roots).map(({ span, depth }) => `${'  '.repeat(depth)}${span.kind}:${span.name}:${span.status}`);

describe('the trace waterfall: spans from runtime events', () => {
  test('turn → step → model call / tool call → the callee turn, nested by parentSpanId, in start order', () => {
    expect(rows(demoTrace)).toEqual([
      'turn:writer turn:ok',
      '  step:step 0:ok',
      '    model:model call:ok',
      '    tool:agents__request:ok',
      '      turn:reviewer turn:ok',
      '        step:step 0:ok',
      '          model:model call:ok',
      '  step:step 1:ok',
      '    model:model call:ok',
    ]);
  });

  test('each span spans its start and end events; the model call is the first modelDuration of its step', () => {
    const tree = buildSpanTree(demoTrace);
    const spans = new Map(flattenSpans(tree.roots).map(({ span }) => [span.id, span]));
    const writer = spans.get('w-turn');
    expect(writer && writer.end !== undefined ? writer.end - writer.start : -1).toBe(610);
    const model = spans.get('w-step0:model');
    expect(model?.start).toBe(spans.get('w-step0')?.start);
    expect(model && model.end !== undefined ? model.end - model.start : -1).toBe(140);
    expect(tree.end - tree.start).toBe(610);
    expect(spans.get('r-turn')?.details).toMatchObject({ turnId: 't2', finishReason: 'text_response', tokenUsage: { totalTokens: 10 } });
    expect(spans.get('w-tool')?.details).toMatchObject({ args: { target: 'reviewer' }, status: 'ok' });
  });

  test('a span without its end event is running and reaches to now', () => {
    const started = demoTrace.slice(0, 4);
    const now = Date.parse(started[3]?.timestamp ?? '') + 1000;
    expect(rows(started, now)).toEqual(['turn:writer turn:running', '  step:step 0:running', '    tool:agents__request:running', '      turn:reviewer turn:running']);
    const tree = buildSpanTree(started, now);
    expect(tree.end).toBe(now);
  });

  test('failed turns, steps and tools, and error tool results, are errors with their error', () => {
    const error = { code: 'E_TOOL', category: 'tool' as const, message: 'boom' };
    const writer = { traceId: TRACE, agentName: 'writer', instanceKey: 'default' };
    const later = new Date(Date.parse(demoTrace[2]?.timestamp ?? '') + 5).toISOString();
    const failed: RuntimeEvent[] = [
      ...demoTrace.slice(0, 3),
      { type: 'tool.failed', timestamp: later, ...writer, spanId: 'w-tool', parentSpanId: 'w-step0', turnId: 't1', stepId: 's0', toolCallId: 'c1', toolName: 'agents__request', duration: 5, error },
      { type: 'turn.failed', timestamp: later, ...writer, spanId: 'w-turn', turnId: 't1', duration: 9, stepCount: 1, error },
    ];
    const spans = new Map(flattenSpans(buildSpanTree(failed).roots).map(({ span }) => [span.id, span]));
    expect(spans.get('w-tool')?.status).toBe('error');
    expect(spans.get('w-tool')?.details.error).toEqual(error);
    expect(spans.get('w-turn')?.status).toBe('error');
  });

  test('a span whose start is outside the events seen gets its start from its duration', () => {
    const tail = demoTrace.slice(5, 7);
    const turn = flattenSpans(buildSpanTree(tail).roots).find(({ span }) => span.id === 'r-turn')?.span;
    expect(turn && turn.end !== undefined ? turn.end - turn.start : -1).toBe(210);
  });
});
