/**
 * A streaming response follows the runtime events from the moment its event was submitted, not from
 * when the response starts: the turn may stream its first text while the acceptance is still being
 * written to disk (since issue 12 an event follows a new instance's assignment at once).
 */
import { describe, expect, test } from 'bun:test';
import { RuntimeEventBus } from '../../orchestrator/daemon/runtime-event-bus.ts';
import { followRuntimeEvents, settledOrStop } from '../../orchestrator/http/trace-stream.ts';
import type { StreamedEvent } from '../../shared/types/turns.ts';

const delta = (text: string): StreamedEvent => ({ type: 'step.delta', text, traceId: 't', agentName: 'a', instanceKey: 'k', timestamp: new Date().toISOString() }) as unknown as StreamedEvent;
const textOf = (event: StreamedEvent): unknown => (event as unknown as { text: unknown }).text;

describe('followRuntimeEvents', () => {
  test('keeps what is published before the stream takes it, then forwards the rest, in order', () => {
    const bus = new RuntimeEventBus();
    const events = followRuntimeEvents(bus);
    bus.publish(delta('one'));
    bus.publish(delta('two'));
    const seen: unknown[] = [];
    const unsubscribe = events.take((event) => seen.push(textOf(event)));
    bus.publish(delta('three'));
    expect(seen).toEqual(['one', 'two', 'three']);
    unsubscribe();
    expect(bus.size).toBe(0);
  });

  test('an acceptance that fails stops following: nothing is kept for a stream that never starts', async () => {
    const bus = new RuntimeEventBus();
    const events = followRuntimeEvents(bus);
    await expect(settledOrStop(Promise.reject(new Error('disk full')), events)).rejects.toThrow('disk full');
    expect(bus.size).toBe(0);
    const kept = followRuntimeEvents(bus);
    await settledOrStop(Promise.resolve(), kept);
    expect(bus.size).toBe(1);
    kept.stop();
    expect(bus.size).toBe(0);
  });
});
