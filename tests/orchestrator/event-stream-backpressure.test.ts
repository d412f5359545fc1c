/**
 * `GET /v1/events/stream` and a client that does not read (orchestrator/http/event-stream.ts): over
 * a real socket, a client more than SSE_MAX_QUEUED_BYTES behind is cut off instead of holding the
 * daemon's memory, a reading client gets everything, and a replay longer than the bound comes in
 * parts that a reconnect with Last-Event-ID continues.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { RuntimeEventBus } from '../../orchestrator/daemon/runtime-event-bus.ts';
import { RuntimeEventJournal } from '../../orchestrator/daemon/runtime-event-journal.ts';
import { eventStream, SSE_MAX_QUEUED_BYTES } from '../../orchestrator/http/event-stream.ts';
import type { StreamedEvent } from '../../shared/types/turns.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';
import { waitFor } from '../helpers/wait-for.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-sse-');
const servers: Array<{ stop(force: boolean): void }> = [];
afterAll(() => {
  for (const server of servers) server.stop(true);
});

const TEXT = 'x'.repeat(100_000);
const event = (i: number) => ({ type: 'step.started', agentName: 'a', instanceKey: 'k', traceId: 't', spanId: 's', timestamp: String(i), text: TEXT }) as unknown as StreamedEvent;
/** Events enough to pass the bound twice over. */
const MANY = Math.ceil((2 * SSE_MAX_QUEUED_BYTES) / TEXT.length);

function serve(bus: RuntimeEventBus): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => eventStream(request, bus) });
  servers.push(server);
  return server.port ?? 0;
}

describe('a client that does not read', () => {
  test('is cut off once it is more than the bound behind; one that reads gets every event', async () => {
    const bus = new RuntimeEventBus();
    const port = serve(bus);
    const idle = connect(port, '127.0.0.1');
    idle.write('GET /v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    idle.pause();
    const reading = await fetch(`http://127.0.0.1:${port}/v1/events/stream`);
    await waitFor('both subscribed', () => bus.subscribers, (n) => n === 2);
    const reader = reading.body?.getReader();
    let received = '';
    const drained = (async () => {
      const decoder = new TextDecoder();
      while (!received.includes(`"timestamp":"${MANY - 1}"`)) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        received += decoder.decode(chunk.value, { stream: true });
      }
    })();
    for (let i = 0; i < MANY; i++) {
      bus.publish(event(i));
      await Bun.sleep(1);
    }
    await drained;
    expect(bus.subscribers).toBe(1);
    expect(received.match(/^id: /gm)?.length).toBe(MANY);
    await reader?.cancel();
    idle.destroy();
  });

  test('a replay longer than the bound ends after a part; reconnecting from its last id goes on', async () => {
    const bus = new RuntimeEventBus(new RuntimeEventJournal(tempDir(), { maxBytes: 1024 * 1024 * 1024, maxAgeMs: 3_600_000 }));
    for (let i = 0; i < MANY; i++) bus.publish(event(i));
    const port = serve(bus);
    const ids: number[] = [];
    let from = 0;
    for (let part = 0; part < 5 && ids.length < MANY; part++) {
      const text = await (await fetch(`http://127.0.0.1:${port}/v1/events/stream`, { headers: { 'last-event-id': String(from) }, signal: AbortSignal.timeout(30_000) })).text();
      const partIds = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(partIds.length).toBeGreaterThan(0);
      ids.push(...partIds);
      from = partIds.at(-1) ?? from;
      if (ids.length < MANY) expect(text.length).toBeLessThan(SSE_MAX_QUEUED_BYTES + 2 * TEXT.length);
    }
    expect(ids).toEqual(Array.from({ length: MANY }, (_, i) => i + 1));
  });
});
