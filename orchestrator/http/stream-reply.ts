/**
 * `POST /v1/events` with `stream: true` (issue 13): the answer is `text/event-stream` — every
 * runtime event of the request's trace as it happens (`step.delta` text, tool and turn events,
 * also those of agents it calls), each as an SSE event named by its type, then one final `reply`
 * event whose data is the body a non-streaming call returns.
 */
import type { JsonObject } from '../../shared/types/json.ts';
import type { StreamedEvent } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Submitted } from '../routing/router.ts';

export function streamReply(submitted: Submitted, runtimeEvents: RuntimeEventBus, replyBody: (outcome: NonNullable<Awaited<Submitted['reply']>>) => JsonObject, headers: Record<string, string>): Response {
  const encoder = new TextEncoder();
  let unsubscribe = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (name: string, data: unknown) => controller.enqueue(encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`));
      unsubscribe = runtimeEvents.subscribe((event: StreamedEvent) => {
        const record: Record<string, unknown> = { ...event };
        if (record.traceId === submitted.traceId && typeof record.type === 'string') send(record.type, record);
      });
      void (submitted.reply ?? Promise.resolve(undefined)).then((outcome) => {
        unsubscribe();
        if (outcome) send('reply', replyBody(outcome));
        controller.close();
      });
    },
    cancel() {
      unsubscribe();
    },
  });
  return new Response(stream, { headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' } });
}
