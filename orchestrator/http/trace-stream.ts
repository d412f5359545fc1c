/**
 * A `text/event-stream` response that follows one submitted event: it writes what `onEvent` makes
 * of each runtime event published since the event was submitted, then what `onReply` makes of its
 * outcome, and ends. Shared by `POST /v1/events` with `stream: true` and the OpenAI-compatible
 * front door.
 */
import type { StreamedEvent } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import type { Submitted } from '../routing/external-submissions.ts';

export type ReplyOutcome = Awaited<NonNullable<Submitted['reply']>>;

export interface TraceStreamHandlers {
  /** Written first, before any event. */
  opening?: string;
  /** SSE text for one published runtime event (any trace: filter here), or undefined to skip it. */
  onEvent(event: StreamedEvent): string | undefined;
  /** SSE text that ends the stream (the outcome is undefined when the event was not waited for). */
  onReply(outcome: ReplyOutcome | undefined): string;
}

/** Runtime events from now on, kept until a stream takes them (or stop()). */
export interface RuntimeEventFollower {
  /** What was kept, then every later event, to `listener`; returns the unsubscribe. */
  take(listener: (event: StreamedEvent) => void): () => void;
  stop(): void;
}

/**
 * Follows the bus from the moment of the call: the submitted event's turn may start (and stream its
 * first text) before the response does, which waits for the acceptance to reach the disk.
 */
export function followRuntimeEvents(runtimeEvents: RuntimeEventBus): RuntimeEventFollower {
  const kept: StreamedEvent[] = [];
  let forward: ((event: StreamedEvent) => void) | undefined;
  const unsubscribe = runtimeEvents.subscribe((event) => {
    if (forward) forward(event);
    else kept.push(event);
  });
  return {
    take(listener) {
      for (const event of kept.splice(0)) listener(event);
      forward = listener;
      return unsubscribe;
    },
    stop: unsubscribe,
  };
}

export function traceStream(submitted: Submitted, events: RuntimeEventFollower, handlers: TraceStreamHandlers, headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  let unsubscribe = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => controller.enqueue(encoder.encode(text));
      if (handlers.opening !== undefined) write(handlers.opening);
      unsubscribe = events.take((event) => {
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

/** Awaits the acceptance; if it fails, nothing will take what `events` keeps: it stops following. */
export async function settledOrStop(stored: Promise<unknown> | undefined, events: RuntimeEventFollower): Promise<void> {
  try {
    await stored;
  } catch (error) {
    events.stop();
    throw error;
  }
}
