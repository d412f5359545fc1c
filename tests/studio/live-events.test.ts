import { describe, expect, test } from 'bun:test';
import { type StepDelta, toLiveEvent } from '../../studio/src/model/live-event.ts';
import { ReplyStream } from '../../studio/src/model/reply-stream.ts';
import { demoTrace, TRACE } from './trace-events.ts';

describe('the event stream as the page reads it', () => {
  test('runtime events pass with their type; junk and mismatched types are dropped', () => {
    const event = demoTrace[0];
    expect(toLiveEvent('turn.started', event)).toEqual(event);
    expect(toLiveEvent('turn.completed', event)).toBeUndefined();
    expect(toLiveEvent('turn.started', { type: 'turn.started', traceId: TRACE })).toBeUndefined();
    expect(toLiveEvent('nope', { type: 'nope', traceId: TRACE })).toBeUndefined();
    expect(toLiveEvent('turn.started', 'text')).toBeUndefined();
  });

  test('step.delta is read with its agent as agentName or agent', () => {
    const expected: StepDelta = { type: 'step.delta', traceId: TRACE, agentName: 'writer', instanceKey: 'k', text: 'Hel' };
    expect(toLiveEvent('step.delta', { type: 'step.delta', traceId: TRACE, agentName: 'writer', instanceKey: 'k', text: 'Hel', stepId: 's' })).toEqual(expected);
    expect(toLiveEvent('step.delta', { traceId: TRACE, agent: 'writer', instanceKey: 'k', text: 'Hel' })).toEqual(expected);
  });
});

describe('a streamed reply', () => {
  test('collects the chunks of its own turn in order and ignores every other turn, agent or instance', () => {
    const reply = new ReplyStream(TRACE, 'writer', 'k');
    const delta = (text: string, over: Record<string, string> = {}) => ({ type: 'step.delta' as const, traceId: TRACE, agentName: 'writer', instanceKey: 'k', text, ...over });
    expect(reply.accept(delta('Hello, '))).toBe(true);
    expect(reply.accept(delta('reviewer text', { agentName: 'reviewer' }))).toBe(false);
    expect(reply.accept(delta('other', { traceId: 'f'.repeat(32) }))).toBe(false);
    expect(reply.accept(delta('other', { instanceKey: 'j' }))).toBe(false);
    expect(reply.accept(delta('world'))).toBe(true);
    expect(reply.text).toBe('Hello, world');
    expect(reply.chunkCount).toBe(2);
  });
});
