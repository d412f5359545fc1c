/**
 * Every error of the OpenAI-compatible routes (`/v1/models`, `/v1/chat/completions`) is in OpenAI's
 * `{error: {message, type, param, code}}` shape — a wrong token and a wrong method included — so the
 * official client reads it; a budget refusal is `insufficient_quota` streamed or not. The rest of
 * the API keeps goondan's `{error: {code, category, message, suggestion}}`.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { RuntimeEventBus } from '../../orchestrator/daemon/runtime-event-bus.ts';
import { ApiCredentials } from '../../orchestrator/http/api-credential.ts';
import { type DaemonApi, startApiServer } from '../../orchestrator/http/api-server.ts';
import type { ExternalSubmission, Submitted } from '../../orchestrator/routing/external-submissions.ts';
import { runtimeError } from '../../shared/errors/index.ts';
import { createLogger } from '../../shared/logger.ts';

const TOKEN = 'the-right-token-for-this-test';

const daemon: DaemonApi = {
  isReady: () => true,
  entryAgent: () => 'writer',
  isKnownAgent: (name) => name === 'writer',
  agents: () => ['writer'],
  processes: async () => [],
  submit: (submission: ExternalSubmission): Submitted => ({
    eventId: 'evt_1',
    traceId: 'trace_1',
    instanceKey: submission.instanceKey ?? 'k',
    stored: Promise.resolve(),
    reply: Promise.resolve({ status: 'error', output: '', turnId: 'turn_1', error: runtimeError('BUDGET_EXCEEDED', 'perTurn tokens limit 10 reached (12 used)') }),
  }),
  eventRecord: () => undefined,
  runtimeEvents: new RuntimeEventBus(),
  metricsText: async () => '',
  deleteInstance: async () => ({}),
  restartInstance: async () => ({}),
  countMalformedBody: () => {},
};

const server = startApiServer({
  host: '127.0.0.1',
  port: 0,
  credentials: new ApiCredentials([TOKEN]),
  logger: createLogger({ name: 'test', level: 'silent' }),
  daemon,
});
afterAll(() => server.stop(true));
const base = `http://127.0.0.1:${server.port}`;
const client = (apiKey = TOKEN) => new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 });

function expectOpenAiShape(body: unknown, type: string, code: string): void {
  expect(body).toEqual({ error: { message: expect.any(String), type, param: null, code } });
}

describe('OpenAI-shaped errors on the front door', () => {
  test('a wrong key on /v1/chat/completions: 401 authentication_error, read by the official client', async () => {
    const raw = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'writer', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(raw.status).toBe(401);
    expectOpenAiShape(await raw.json(), 'authentication_error', 'E_HTTP_UNAUTHORIZED');
    const error = await client('wrong').chat.completions.create({ model: 'writer', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error', code: 'E_HTTP_UNAUTHORIZED', param: null });
  });

  test('a wrong key and a wrong method on /v1/models', async () => {
    const anonymous = await fetch(`${base}/v1/models`);
    expect(anonymous.status).toBe(401);
    expectOpenAiShape(await anonymous.json(), 'authentication_error', 'E_HTTP_UNAUTHORIZED');
    const wrongMethod = await fetch(`${base}/v1/models`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(wrongMethod.status).toBe(405);
    expectOpenAiShape(await wrongMethod.json(), 'invalid_request_error', 'E_HTTP_METHOD_NOT_ALLOWED');
  });

  test('a budget refusal is insufficient_quota (429) without stream, and the same inside a stream', async () => {
    const refused = await client().chat.completions.create({ model: 'writer', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'BUDGET_EXCEEDED' });
    const streamed = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'writer', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const events = (await streamed.text()).split('\n\n').filter((chunk) => chunk.startsWith('data: {'));
    const error: unknown = JSON.parse(events.at(-1)?.slice('data: '.length) ?? '{}');
    expect(error).toMatchObject({ error: { type: 'insufficient_quota', code: 'BUDGET_EXCEEDED', param: null } });
  });

  test('the rest of the API keeps goondan\'s error shape', async () => {
    const anonymous = await fetch(`${base}/v1/processes`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'E_HTTP_UNAUTHORIZED', category: 'user' } });
  });
});
