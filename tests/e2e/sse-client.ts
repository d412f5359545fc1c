/**
 * A small Server-Sent Events reader for the e2e tests: parses the frames of `GET /v1/events/stream`
 * as a browser's EventSource would (fields `id`, `event`, `data`, `retry`; `:` comments ignored)
 * and waits for a condition on what arrived so far, with a deadline.
 */
import { type SseFrame, sseFrames } from '../../shared/http/sse-frames.ts';
import type { Daemon } from './daemon-harness.ts';

export type { SseFrame };

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
    const body = response.body;
    void (async () => {
      try {
        for await (const frame of sseFrames(body)) {
          frames.push(frame);
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

/** The runtime event a frame carries (`{type, …}`), or undefined for a frame without data. */
export function eventOf(frame: SseFrame): Record<string, unknown> | undefined {
  return frame.data === '' ? undefined : (JSON.parse(frame.data) as Record<string, unknown>);
}
