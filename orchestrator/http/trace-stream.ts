/**
 * A `text/event-stream` response that follows one submitted event: it writes what `onEvent` makes
 * of each runtime event published while the turn runs, then what `onReply` makes of its outcome,
 * and ends. Shared by `POST /v1/events` with `stream: true` and the OpenAI-compatible front door.
 */
import type { StreamedEvent } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Submitted } from '../routing/router.ts';

export type ReplyOutcome = Awaited<NonNullable<Submitted['reply']>>;

export interface TraceStreamHandlers {
  /** Written first, before any event. */
  opening?: string;
  /** SSE text for one published runtime event (any trace: filter here), or undefined to skip it. */
  onEvent(event: StreamedEvent): string | undefined;
  /** SSE text that ends the stream (the outcome is undefined when the event was not waited for). */
  onReply(outcome: ReplyOutcome | undefined): string;
}

export function traceStream(submitted: Submitted, runtimeEvents: RuntimeEventBus, handlers: TraceStreamHandlers, headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  let unsubscribe = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => controller.enqueue(encoder.encode(text));
      if (handlers.opening !== undefined) write(handlers.opening);
      unsubscribe = runtimeEvents.subscribe((event) => {
        const text = handlers.onEvent(event);
        if (text !== undefined) write(text);
      });
      void (submitted.reply ?? Promise.resolve(undefined)).then((outcome) => {
        unsubscribe();
        write(handlers.onReply(outcome));
        controller.close();
      });
    },
    cancel() {
      unsubscribe();
    },
  });
  return new Response(stream, { headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' } });
}
