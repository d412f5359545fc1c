/**
 * A small Server-Sent Events reader for the e2e tests: parses the frames of `GET /v1/events/stream`
 * as a browser's EventSource would (fields `id`, `event`, `data`, `retry`; `:` comments ignored)
 * and waits for a condition on what arrived so far, with a deadline.
 */
import type { Daemon } from './daemon-harness.ts';

export interface SseFrame {
  id?: string;
  /** The `event:` field; absent means a default `message` event. */
  event?: string;
  data: string;
  retry?: number;
}

export interface SseConnection {
  status: number;
  frames: SseFrame[];
  /** Waits until `condition(frames)` holds; the failure says what was waited for and what arrived. */
  waitFor(condition: (frames: SseFrame[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function openStream(daemon: Daemon, query = '', headers: Record<string, string> = {}): Promise<SseConnection> {
  const controller = new AbortController();
  const response = await daemon.api(`/v1/events/stream${query}`, { signal: controller.signal, headers });
  const frames: SseFrame[] = [];
  let changed = () => {};
  if (response.ok && response.body) {
    const reader = response.body.getReader();
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const frame = parseFrame(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
            if (frame) frames.push(frame);
          }
          changed();
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  return {
    status: response.status,
    frames,
    async waitFor(condition, what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition(frames)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${frames.length} frames arrived:\n${frames.map((f) => `${f.id ?? '-'} ${f.data.slice(0, 160)}`).join('\n')}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 200));
          changed = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => controller.abort(),
  };
}

function parseFrame(text: string): SseFrame | undefined {
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

/** The runtime event a frame carries (`{type, …}`), or undefined for a frame without data. */
export function eventOf(frame: SseFrame): Record<string, unknown> | undefined {
  return frame.data === '' ? undefined : (JSON.parse(frame.data) as Record<string, unknown>);
}
