/**
 * Server-Sent Events frames read from a response body, parsed as a browser's EventSource would
 * (fields `id`, `event`, `data`, `retry`; `:` comments ignored; several `data:` lines joined by
 * newlines). Used by `goondan send` (a streamed reply) and the e2e tests' stream clients.
 */
export interface SseFrame {
  id?: string;
  /** The `event:` field; absent means a default `message` event. */
  event?: string;
  data: string;
  retry?: number;
}

/** Yields each frame of `body` as it completes (a blank line ends a frame). */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame = parseSseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (frame) yield frame;
    }
  }
}

export function parseSseFrame(text: string): SseFrame | undefined {
  const frame: SseFrame = { data: '' };
  const data: string[] = [];
  let fields = 0;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields += 1;
    if (name === 'data') data.push(value);
    else if (name === 'id') frame.id = value;
    else if (name === 'event') frame.event = value;
    else if (name === 'retry') frame.retry = Number(value);
  }
  if (fields === 0) return undefined;
  frame.data = data.join('\n');
  return frame;
}
