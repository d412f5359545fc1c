/**
 * Fake chat provider APIs on loopback for the connector e2e tests — the third-party services
 * the connectors talk to, and nothing more. One server answers:
 *   Telegram  POST /telegram/bot<token>/<method> (getUpdates: long polling with Telegram's
 *             server-side offset — asking with `offset` confirms every update before it; getFile),
 *             GET /telegram/file/bot<token>/<path>
 *   Slack     POST /slack/<method> (conversations.* answer two messages), GET /slack-files/<name>
 *   Discord   PATCH /discord/webhooks/<app>/<token>/messages/@original, POST /discord/webhooks/<app>/<token>
 *   GitHub    POST /github/repos/<owner>/<repo>/issues/<n>/comments
 * Every request is recorded; `failNext` scripts error answers for the next matching requests.
 */
import { waitUntil } from './daemon-harness.ts';

export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The status this fake answered. */
  status: number;
}

interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface TelegramBot {
  updates: Array<Record<string, unknown>>;
  /** Updates below this id were confirmed and are never served again. */
  confirmed: number;
  /** Long polls waiting for an update. */
  waiters: Set<() => void>;
}

export interface FakeChatProviders {
  url: string;
  calls: RecordedCall[];
  /** The bot token of every Telegram getUpdates (long poll) as it arrived; polls are not in `calls`. */
  polls: string[];
  /** Queues an update for a bot; its long poll returns it. */
  pushTelegramUpdate(token: string, update: Record<string, unknown>): void;
  /** The next `answers.length` requests whose path contains `pathPart` get these answers. */
  failNext(pathPart: string, answers: ScriptedAnswer[]): void;
  /** Successful calls matching the predicate. */
  delivered(predicate: (call: RecordedCall) => boolean): RecordedCall[];
  /** Waits until `count` successful calls match; the error names what was seen. */
  waitForDelivered(predicate: (call: RecordedCall) => boolean, what: string, count?: number): Promise<RecordedCall[]>;
  stop(): void;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function startFakeChatProviders(): FakeChatProviders {
  const calls: RecordedCall[] = [];
  const polls: string[] = [];
  const scripts: Array<{ pathPart: string; answer: ScriptedAnswer }> = [];
  const bots = new Map<string, TelegramBot>();
  const bot = (token: string): TelegramBot => {
    let found = bots.get(token);
    if (!found) {
      found = { updates: [], confirmed: 0, waiters: new Set() };
      bots.set(token, found);
    }
    return found;
  };

  async function getUpdates(token: string, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
    const state = bot(token);
    if (typeof body.offset === 'number') state.confirmed = Math.max(state.confirmed, body.offset);
    state.updates = state.updates.filter((u) => Number(u.update_id) >= state.confirmed);
    const timeoutMs = (typeof body.timeout === 'number' ? body.timeout : 0) * 1000;
    if (state.updates.length === 0 && timeoutMs > 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          state.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, timeoutMs);
        state.waiters.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
    return json(200, { ok: true, result: state.updates });
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 60,
    fetch: async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = text === '' ? {} : JSON.parse(text);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = { ...parsed };
      } catch {
        return json(400, { ok: false, description: 'bad json' });
      }
      const call: RecordedCall = { method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers.entries()), body, status: 200 };
      const poll = url.pathname.match(/^\/telegram\/bot([^/]+)\/getUpdates$/);
      if (poll?.[1]) {
        polls.push(decodeURIComponent(poll[1]));
        return getUpdates(decodeURIComponent(poll[1]), body, request.signal);
      }
      calls.push(call);
      const scripted = scripts.findIndex((s) => url.pathname.includes(s.pathPart));
      const answer = scripted >= 0 ? scripts.splice(scripted, 1)[0]?.answer : undefined;
      if (answer) {
        call.status = answer.status;
        return json(answer.status, answer.body ?? { ok: false, error: 'scripted failure' }, answer.headers);
      }
      if (url.pathname.startsWith('/telegram/file/') || url.pathname.startsWith('/slack-files/')) return new Response(`bytes of ${url.pathname.split('/').pop()}`, { headers: { 'content-type': 'text/plain' } });
      if (url.pathname.endsWith('/getFile')) return json(200, { ok: true, result: { file_id: body.file_id, file_path: 'documents/report.txt' } });
      if (url.pathname.startsWith('/telegram/')) return json(200, { ok: true, result: { message_id: calls.length } });
      if (url.pathname.startsWith('/slack/conversations.')) {
        const messages = [{ ts: '2.2', user: 'U2', text: 'second' }, { ts: '1.1', user: 'U1', text: 'first', thread_ts: '1.1' }];
        return json(200, { ok: true, messages, response_metadata: { next_cursor: 'next-page' } });
      }
      if (url.pathname.startsWith('/slack/')) return json(200, { ok: true, channel: body.channel, ts: `${Date.now() / 1000}` });
      if (url.pathname.startsWith('/discord/')) return json(200, { id: String(calls.length) });
      if (url.pathname.startsWith('/github/')) {
        call.status = 201;
        return json(201, { id: calls.length });
      }
      call.status = 404;
      return json(404, { message: 'not found' });
    },
  });

  const delivered = (predicate: (call: RecordedCall) => boolean) => calls.filter((c) => c.status < 300 && predicate(c));
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    polls,
    pushTelegramUpdate(token, update) {
      const state = bot(token);
      state.updates.push(update);
      for (const wake of [...state.waiters]) wake();
    },
    failNext(pathPart, answers) {
      for (const answer of answers) scripts.push({ pathPart, answer });
    },
    delivered,
    async waitForDelivered(predicate, what, count = 1) {
      try {
        await waitUntil(() => delivered(predicate).length >= count, what);
      } catch {
        const seen = calls.map((c) => `${c.status} ${c.method} ${c.path} ${JSON.stringify(c.body).slice(0, 160)}`).join('\n');
        throw new Error(`timed out waiting for ${what} (${count}); the fake provider saw:\n${seen}`);
      }
      return delivered(predicate);
    },
    stop() {
      server.stop(true);
    },
  };
}
