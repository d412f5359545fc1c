/**
 * A fake OpenAI-compatible chat server on loopback for token-streaming tests: its streamed reply
 * sends FIRST_WORDS, then holds the rest until the test calls `release()`. Text a client shows
 * while the reply is held reached it before the turn could complete — proved by construction,
 * with no timing involved. Asked "ask the helper", it first calls `agents__request` to `helper`.
 */
import type { Server } from 'bun';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './daemon-harness.ts';

export const FIRST_WORDS = 'tok-one tok-two ';
export const LAST_WORDS = 'tok-three tok-four';
/** The entry agent's whole reply. */
export const REPLY = `${FIRST_WORDS}${LAST_WORDS}`;

export interface GatedChatServer {
  /** A copy of the terminal-streaming fixture pointing at this server. */
  bundle: string;
  /** How many held replies have started streaming. */
  held(): number;
  /** Lets every held reply (and every later one) finish. */
  release(): void;
  stop(): void;
}

interface ChatRequest {
  messages: Array<{ role: string; content: unknown }>;
}

const encoder = new TextEncoder();
const frame = (value: object) => encoder.encode(`data: ${JSON.stringify(value)}\n\n`);
const chunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-gated',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'talker-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usage = { id: 'chatcmpl-gated', object: 'chat.completion.chunk', created: 1, model: 'talker-model', choices: [], usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } };

export function startGatedChatServer(): GatedChatServer {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let heldCount = 0;
  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // A held reply may wait long on a loaded machine; the default 10 s idle limit would cut it.
    idleTimeout: 0,
    fetch: async (request) => {
      const body = (await request.json()) as ChatRequest;
      const last = body.messages.at(-1);
      if (last?.role === 'user' && JSON.stringify(last.content).includes('ask the helper')) return stream([helperCall()]);
      heldCount += 1;
      return stream([[chunk({ role: 'assistant' }), chunk({ content: FIRST_WORDS })], gate, [chunk({ content: LAST_WORDS }), chunk({}, 'stop'), usage]]);
    },
  });
  const bundle = mkdtempSync(join(tmpdir(), 'goondan-termstream-'));
  const yaml = readFileSync(join(REPO_ROOT, 'tests/fixtures/e2e/terminal-streaming/goondan.yaml'), 'utf8');
  writeFileSync(join(bundle, 'goondan.yaml'), yaml.replaceAll('FAKE_LLM_URL', `http://127.0.0.1:${server.port}/v1`));
  return {
    bundle,
    held: () => heldCount,
    release: () => open(),
    stop() {
      open();
      server.stop(true);
      rmSync(bundle, { recursive: true, force: true });
    },
  };
}

function helperCall(): object[] {
  const call = { id: 'call_helper', type: 'function', function: { name: 'agents__request', arguments: JSON.stringify({ target: 'helper', input: 'psst' }) } };
  return [chunk({ role: 'assistant' }), chunk({ tool_calls: [{ index: 0, ...call }] }), chunk({}, 'tool_calls'), usage];
}

/** An SSE response: each array goes out as its frames; at a promise the stream waits. */
function stream(parts: Array<object[] | Promise<void>>): Response {
  const queue = [...parts];
  const body = new ReadableStream<Uint8Array>({
    // Each pull sends something (a pull that enqueues nothing is not pulled again).
    async pull(controller) {
      let part = queue.shift();
      while (part instanceof Promise) {
        await part;
        part = queue.shift();
      }
      if (part === undefined) {
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      } else for (const value of part) controller.enqueue(frame(value));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}
