/**
 * `stream: true` of the OpenAI-compatible front door: chat.completion.chunk events over SSE — the
 * role first, then the turn's text as it is produced (the agents' `step.delta` runtime events of
 * this trace), then the finish (with usage when asked) and `[DONE]`. A failed turn ends the stream
 * with an error event in OpenAI's shape.
 */
import type { StreamedEvent } from '../../../shared/types/turns.ts';
import type { Submitted } from '../../routing/external-submissions.ts';
import { type RuntimeEventFollower, traceStream } from '../trace-stream.ts';
import { chatChunk, failedTurnStatus, openAiErrorBody } from './openai-format.ts';

export interface StreamCompletionInput {
  id: string;
  model: string;
  created: number;
  submitted: Submitted;
  includeUsage: boolean;
  /** Followed since the submission. */
  events: RuntimeEventFollower;
}

export function streamCompletion(input: StreamCompletionInput): Response {
  const { id, model, created, submitted } = input;
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  let streamed = '';
  return traceStream(submitted, input.events, {
    opening: data(chatChunk(id, model, created, { role: 'assistant', content: '' }, null)),
    onEvent: (event) => {
      const delta = deltaText(event, submitted.traceId, model);
      if (delta === undefined) return undefined;
      streamed += delta;
      return data(chatChunk(id, model, created, { content: delta }, null));
    },
    onReply: (outcome) => {
      let text = '';
      if (!outcome || outcome.status !== 'ok') {
        // The same mapping as a non-streamed answer: a budget refusal is insufficient_quota, not server_error.
        const error = outcome?.error ?? { code: 'AGENT_TURN_FAILED', category: 'system' as const, message: 'the turn failed' };
        text += data(openAiErrorBody(outcome ? failedTurnStatus(outcome) : 500, error));
      } else {
        // Text the deltas did not carry (a model that does not stream, or the final step's rest).
        const rest = outcome.output.startsWith(streamed) ? outcome.output.slice(streamed.length) : streamed === '' ? outcome.output : '';
        if (rest !== '') text += data(chatChunk(id, model, created, { content: rest }, null));
        text += data(chatChunk(id, model, created, {}, 'stop'));
        if (input.includeUsage) text += data({ ...chatChunk(id, model, created, {}, null, outcome.usage), choices: [] });
      }
      return `${text}data: [DONE]\n\n`;
    },
  });
}

/** The text of a `step.delta` runtime event of this trace's entry agent, if it is one. */
function deltaText(event: StreamedEvent, traceId: string, agent: string): string | undefined {
  const record: Record<string, unknown> = { ...event };
  if (record.type !== 'step.delta' || record.traceId !== traceId || record.agentName !== agent) return undefined;
  return typeof record.text === 'string' ? record.text : undefined;
}
