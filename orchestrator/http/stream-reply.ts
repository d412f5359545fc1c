/**
 * `POST /v1/events` with `stream: true` (issue 13): the answer is `text/event-stream` — every
 * runtime event of the request's trace as it happens (`step.delta` text, tool and turn events,
 * also those of agents it calls), each as an SSE event named by its type, then one final `reply`
 * event whose data is the body a non-streaming call returns.
 */
import type { JsonObject } from '../../shared/types/json.ts';
import type { Submitted } from '../routing/external-submissions.ts';
import { type ReplyOutcome, type RuntimeEventFollower, traceStream } from './trace-stream.ts';

const sseEvent = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

export function streamReply(submitted: Submitted, events: RuntimeEventFollower, replyBody: (outcome: ReplyOutcome) => JsonObject, headers: Record<string, string>): Response {
  return traceStream(
    submitted,
    events,
    {
      onEvent: (event) => {
        const record: Record<string, unknown> = { ...event };
        return record.traceId === submitted.traceId && typeof record.type === 'string' ? sseEvent(record.type, record) : undefined;
      },
      onReply: (outcome) => (outcome ? sseEvent('reply', replyBody(outcome)) : ''),
    },
    headers,
  );
}
