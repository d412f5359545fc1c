/**
 * `GET /v1/events/stream`: Server-Sent Events of runtime events, optionally filtered by `agent`,
 * `instanceKey`, `traceId` and `type` (comma-separated; `turn.*` matches a family). Each event is a
 * default `message` event (so `EventSource.onmessage` sees it) whose data is the runtime event,
 * `{type, …}`; its `id:` is monotonic per state root. A client reconnecting with `Last-Event-ID`
 * (header, or `?lastEventId=`) first receives what it missed from the daemon's on-disk log.
 * Unknown query parameters are a 400, not silently ignored.
 */
import type { StreamedEvent } from '../../shared/types/turns.ts';
import type { RuntimeEventBus } from '../daemon/runtime-event-bus.ts';
import { errorResponse } from './http-errors.ts';

const SSE_HEARTBEAT_MS = 15_000;
/** Bytes queued for one client that does not read before it is cut off (it resumes with Last-Event-ID). */
export const SSE_MAX_QUEUED_BYTES = 8 * 1024 * 1024;
/** How long a disconnected EventSource waits before it reconnects. */
export const SSE_RETRY_MS = 2_000;
const FILTERS = ['agent', 'instanceKey', 'traceId', 'type', 'lastEventId'] as const;

export function eventStream(request: Request, bus: RuntimeEventBus): Response {
  const url = new URL(request.url);
  const unknown = [...url.searchParams.keys()].filter((key) => !(FILTERS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    return errorResponse(400, 'E_HTTP_UNKNOWN_FILTER', `unknown filter parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
      details: { allowed: [...FILTERS] },
      suggestion: `filter with ${FILTERS.filter((f) => f !== 'lastEventId').join(', ')} (type takes a comma-separated list; turn.* matches a family)`,
    });
  }
  const resumeFrom = request.headers.get('last-event-id') ?? url.searchParams.get('lastEventId');
  const lastEventId = resumeFrom !== null && /^\d+$/.test(resumeFrom) ? Number(resumeFrom) : undefined;
  if (resumeFrom !== null && lastEventId === undefined) {
    return errorResponse(400, 'E_HTTP_BAD_LAST_EVENT_ID', `Last-Event-ID '${resumeFrom}' is not an event id`, { suggestion: 'send the id: of the last event you received' });
  }
  const accepts = filterOf(url);
  let unsubscribe = () => {};
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const encoder = new TextEncoder();
  const frame = (id: number, event: StreamedEvent) => encoder.encode(`id: ${id}\ndata: ${JSON.stringify(event)}\n\n`);
  const stop = () => {
    unsubscribe();
    if (heartbeat) clearInterval(heartbeat);
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Past the bound the client is not reading: `true` when this frame put it there.
        const behind = (bytes: Uint8Array): boolean => {
          controller.enqueue(bytes);
          return (controller.desiredSize ?? 0) < 0;
        };
        controller.enqueue(encoder.encode(`: goondan runtime events\nretry: ${SSE_RETRY_MS}\n\n`));
        // Replay and subscription happen in one synchronous stretch: no event falls between them.
        // An id ahead of the stream (from before the state root was reset, or mistyped) would hold
        // back every new event until the ids passed it: the stream starts at the present instead.
        let replayedUpTo = Math.min(lastEventId ?? 0, bus.latestId);
        if (lastEventId !== undefined) {
          for (const { id, event } of bus.since(lastEventId)) {
            if (accepts(event) && behind(frame(id, event))) {
              // A long replay goes in parts: this one ends once sent, and the client's reconnect
              // (with the id of the last event it got) asks for the next.
              controller.close();
              return;
            }
            replayedUpTo = id;
          }
        }
        unsubscribe = bus.subscribe((event, id) => {
          if (id <= replayedUpTo || !accepts(event) || !behind(frame(id, event))) return;
          // A client this far behind holds the daemon's memory: it is cut off (what is queued goes)
          // and resumes from its Last-Event-ID out of the on-disk log when it reconnects.
          stop();
          controller.error(new Error(`the client fell more than ${SSE_MAX_QUEUED_BYTES} bytes behind`));
        });
        heartbeat = setInterval(() => {
          if (behind(encoder.encode(': keep-alive\n\n'))) {
            stop();
            controller.error(new Error('the client does not read'));
          }
        }, SSE_HEARTBEAT_MS);
      },
      cancel: stop,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: SSE_MAX_QUEUED_BYTES }),
  );
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}

function filterOf(url: URL): (event: StreamedEvent) => boolean {
  const agent = url.searchParams.get('agent');
  const instanceKey = url.searchParams.get('instanceKey');
  const traceId = url.searchParams.get('traceId');
  const types = (url.searchParams.get('type') ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const typeMatches = (type: string) => types.length === 0 || types.some((t) => (t.endsWith('.*') ? type.startsWith(t.slice(0, -1)) : type === t));
  return (e) =>
    (!agent || e.agentName === agent) && (!instanceKey || e.instanceKey === instanceKey) && (!traceId || e.traceId === traceId) && typeMatches(e.type);
}
