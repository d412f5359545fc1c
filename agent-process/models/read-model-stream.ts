/**
 * Reads a `LanguageModelV3.doStream` result into one answer: text and reasoning parts in the order
 * they started (with the provider metadata a replay needs, e.g. reasoning signatures), the tool
 * calls with their raw argument text, usage, finish reason and warnings. Text deltas are handed to
 * `onTextDelta` as they arrive. An `error` part ends the call with that error.
 */
import type { LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderMetadata, SharedV3Warning } from '@ai-sdk/provider';

export type StreamedPart =
  | { type: 'text' | 'reasoning'; text: string; providerOptions?: SharedV3ProviderMetadata }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string; providerExecuted?: boolean; providerOptions?: SharedV3ProviderMetadata };

export interface StreamedAnswer {
  /** In stream order; empty text parts are dropped (the AI SDK drops them too). */
  parts: StreamedPart[];
  /** Text of this step: every text part, concatenated. */
  text: string;
  usage?: LanguageModelV3Usage;
  finishReason: string;
  warnings: SharedV3Warning[];
}

type TextLike = Extract<StreamedPart, { type: 'text' | 'reasoning' }>;

export async function readModelStream(stream: ReadableStream<LanguageModelV3StreamPart>, onTextDelta?: (text: string) => void): Promise<StreamedAnswer> {
  const parts: StreamedPart[] = [];
  const open = new Map<string, TextLike>();
  const answer: StreamedAnswer = { parts, text: '', finishReason: 'unknown', warnings: [] };
  const textPart = (kind: TextLike['type'], id: string, metadata: SharedV3ProviderMetadata | undefined): TextLike => {
    const key = `${kind}:${id}`;
    let part = open.get(key);
    if (!part) {
      part = { type: kind, text: '' };
      open.set(key, part);
      parts.push(part);
    }
    if (metadata !== undefined) part.providerOptions = metadata;
    return part;
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      switch (value.type) {
        case 'stream-start':
          answer.warnings.push(...value.warnings);
          break;
        case 'text-start':
        case 'text-end':
          textPart('text', value.id, value.providerMetadata);
          break;
        case 'text-delta': {
          textPart('text', value.id, value.providerMetadata).text += value.delta;
          answer.text += value.delta;
          if (value.delta !== '') onTextDelta?.(value.delta);
          break;
        }
        case 'reasoning-start':
        case 'reasoning-end':
          textPart('reasoning', value.id, value.providerMetadata);
          break;
        case 'reasoning-delta':
          textPart('reasoning', value.id, value.providerMetadata).text += value.delta;
          break;
        case 'tool-call':
          parts.push({
            type: 'tool-call',
            toolCallId: value.toolCallId,
            toolName: value.toolName,
            input: value.input,
            ...(value.providerExecuted !== undefined ? { providerExecuted: value.providerExecuted } : {}),
            ...(value.providerMetadata !== undefined ? { providerOptions: value.providerMetadata } : {}),
          });
          break;
        case 'finish':
          answer.usage = value.usage;
          answer.finishReason = value.finishReason.unified;
          break;
        case 'error':
          throw value.error;
        default:
          // tool-input-* (the finished tool-call follows), response metadata, sources, files, raw chunks.
          break;
      }
    }
  } catch (error) {
    // Stop the provider's response body too (an HTTP stream would otherwise keep running).
    reader.cancel(error).catch(() => {});
    throw error;
  }
  answer.parts = parts.filter((part) => part.type !== 'text' || part.text !== '');
  return answer;
}
