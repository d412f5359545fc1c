/**
 * Token streaming end to end (issue 13), through a real daemon whose mock model streams its reply
 * word by word 150 ms apart: `POST /v1/events` with `stream: true` answers text/event-stream with
 * the trace's `step.delta` events before one final `reply` event; `GET /v1/events/stream` carries
 * the same deltas; `goondan send` prints text before the turn has completed.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { sseFrames } from '../../shared/http/sse-frames.ts';
import { GOONDAN_BIN, REPO_ROOT, sharedDaemon } from './daemon-harness.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/streaming'));
const REPLY = (input: string) => `one two three four five six seven eight (${input})`;

interface SseEvent {
  name: string;
  data: Record<string, unknown>;
}

/** Reads an event stream to its end (or until `until` holds); a frame without `event:` is named by its data's type. */
async function readEvents(response: Response, until?: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  if (!response.body) throw new Error('no response body');
  const events: SseEvent[] = [];
  for await (const frame of sseFrames(response.body)) {
    if (frame.data === '') continue; // e.g. the stream's opening `retry:` frame
    const data = JSON.parse(frame.data) as Record<string, unknown>;
    events.push({ name: frame.event ?? String(data.type), data });
    if (until?.(events)) break;
  }
  return events;
}

describe('POST /v1/events with stream: true', () => {
  test('answers text/event-stream: step.delta text as it is produced, turn events, then the reply body', async () => {
    const response = await daemon().api('/v1/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi', instanceKey: 'http-1', stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readEvents(response);
    const names = events.map((e) => e.name);
    const deltas = events.filter((e) => e.name === 'step.delta');
    // Word-sized chunks, each its own event, all before the turn completed and before the reply.
    expect(deltas.length).toBeGreaterThan(1);
    expect(names.lastIndexOf('step.delta')).toBeLessThan(names.indexOf('turn.completed'));
    expect(names.at(-1)).toBe('reply');
    expect(deltas.map((e) => e.data.text).join('')).toBe(REPLY('hi'));
    const reply = events.at(-1)?.data;
    expect(reply).toMatchObject({ status: 'ok', output: REPLY('hi') });
    expect(typeof reply?.turnId).toBe('string');
    expect(deltas.every((e) => e.data.traceId === reply?.traceId)).toBe(true);
  });

  test('stream with wait: false is a 400 naming the conflict', async () => {
    const response = await daemon().api('/v1/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi', stream: true, wait: false }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('E_HTTP_STREAM_WITHOUT_WAIT');
  });
});

describe('GET /v1/events/stream', () => {
  test('carries the step.delta events of a turn, in order, before its turn.completed', async () => {
    const stream = await daemon().api('/v1/events/stream?instanceKey=sse-1');
    const reading = readEvents(stream, (events) => events.some((e) => e.data.type === 'turn.completed'));
    await daemon().send({ input: 'there', instanceKey: 'sse-1' });
    const events = await reading;
    const deltas = events.filter((e) => e.data.type === 'step.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => e.data.text).join('')).toBe(REPLY('there'));
  });
});

describe('goondan send', () => {
  test('prints the reply as it streams: text is on the terminal before the turn completes', async () => {
    const proc = Bun.spawn([GOONDAN_BIN, 'send', 'hello', '--instance', 'cli-1', '--state-root', daemon().stateRoot], { stdout: 'pipe', stderr: 'pipe' });
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let shown = '';
    let partialSeen = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      shown += value;
      // Some words, not yet all of them: the rest is still being produced 150 ms a word.
      if (shown.includes('one') && !shown.includes('eight')) partialSeen = true;
    }
    expect(await proc.exited).toBe(0);
    expect(partialSeen).toBe(true);
    expect(shown).toBe(`${REPLY('hello')}\n`);
  });
});
