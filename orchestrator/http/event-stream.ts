/** `GET /v1/events/stream`: Server-Sent Events of runtime events, optionally filtered. */
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';

const SSE_HEARTBEAT_MS = 15_000;

export function eventStream(url: URL, bus: RuntimeEventBus): Response {
  const filters = {
    agent: url.searchParams.get('agent'),
    instanceKey: url.searchParams.get('instanceKey'),
    traceId: url.searchParams.get('traceId'),
  };
  const accepts = (e: RuntimeEvent) =>
    (!filters.agent || e.agentName === filters.agent) &&
    (!filters.instanceKey || e.instanceKey === filters.instanceKey) &&
    (!filters.traceId || e.traceId === filters.traceId);
  let unsubscribe = () => {};
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(': goondan runtime events\n\n'));
      unsubscribe = bus.subscribe((event) => {
        if (accepts(event)) controller.enqueue(encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
      });
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(': keep-alive\n\n')), SSE_HEARTBEAT_MS);
    },
    cancel() {
      unsubscribe();
      if (heartbeat) clearInterval(heartbeat);
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}
