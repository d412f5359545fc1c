/**
 * A real provider adapter (`openai-compatible`, @ai-sdk/openai-compatible) against a fake OpenAI
 * chat-completions server on 127.0.0.1 started by the test: a tool-call round, a 429 retried after
 * `Retry-After: 0`, what the model is sent (system and tool messages, catalog, params), broken
 * tool-call JSON, and provider errors as turn errors. Like the real API, the fake answers a
 * `stream: true` request with server-sent chunks (the engine streams every model call).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { createServer, type Server as HttpServer } from 'node:http';
import { isJsonObject, type JsonObject } from '../../shared/types/json.ts';
import { calls as echoCalls } from '../fixtures/engine/tools/echo.ts';
import { streamed } from './helpers/chat-completion-stream.ts';
import { ECHO_EXPORTS, echoTool, errorOf, fixtureExtension, makePlan, removeDir, startEngine, storedToolResults, userEvent, type EngineHarness } from './helpers/engine-fixture.ts';

type Reply = { status: number; headers?: Record<string, string>; body: JsonObject };

interface FakeServer {
  url: string;
  requests: Array<{ body: JsonObject; headers: Headers }>;
  stop(): void;
}

function fakeOpenAI(replies: Reply[]): FakeServer {
  const requests: FakeServer['requests'] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body: unknown = await request.json();
      requests.push({ body: isJsonObject(body) ? body : {}, headers: request.headers });
      const reply: Reply = replies.shift() ?? { status: 500, body: { error: { message: 'no scripted reply left' } } };
      if (reply.status === 200 && isJsonObject(body) && body.stream === true) return streamed(reply.body);
      return Response.json(reply.body, { status: reply.status, headers: reply.headers ?? {} });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, requests, stop: () => server.stop(true) };
}

let callCounter = 0;
const completion = (message: JsonObject, finish: string): Reply => ({
  status: 200,
  body: {
    id: `chatcmpl-${++callCounter}`,
    object: 'chat.completion',
    created: 1700000000,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  },
});
const toolCall = (name: string, args: string, id = `call_${name}_${callCounter}`) =>
  completion({ content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] }, 'tool_calls');
const text = (content: string) => completion({ content }, 'stop');
const rateLimited = (): Reply => ({ status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down', type: 'rate_limit' } } });

const servers: FakeServer[] = [];
const harnesses: EngineHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.engine.close();
    removeDir(h.stateRoot);
  }
  for (const s of servers.splice(0)) s.stop();
});

function compatiblePlan(url: string, extra: Parameters<typeof makePlan>[0] = {}) {
  return makePlan({
    systemPrompt: 'You are the tester.',
    tools: [echoTool()],
    model: { provider: 'openai-compatible', model: 'fake-model', endpoint: url, apiKey: 'sk-test', options: { maxRetries: 2 } },
    modelParams: { temperature: 0.3, maxTokens: 256, topP: 0.9 },
    ...extra,
  });
}

describe('openai-compatible against a fake server', () => {
  test('a tool-call round after a 429 (Retry-After: 0) is retried; the reply and usage come back', async () => {
    const server = fakeOpenAI([rateLimited(), toolCall('echo__say', '{"text":"from server"}'), text('final answer')]);
    servers.push(server);
    const h = await startEngine(compatiblePlan(server.url));
    harnesses.push(h);
    const result = await h.engine.runTurn(userEvent('please say something'));

    expect(result).toMatchObject({ finishReason: 'text_response', responseText: 'final answer', stepCount: 2 });
    expect(result.tokenUsage).toEqual({ promptTokens: 22, completionTokens: 14, totalTokens: 36 });
    expect(server.requests).toHaveLength(3); // 429, retry, second step
    expect(storedToolResults(h.paths)[0]?.output).toEqual({ type: 'text', value: 'from server' });
  });

  test('the request carries the system prompt, the tool round, the catalog verbatim and the model params', async () => {
    const server = fakeOpenAI([toolCall('echo__say', '{"text":"hi"}', 'call_x'), text('done')]);
    servers.push(server);
    const h = await startEngine(compatiblePlan(server.url));
    harnesses.push(h);
    await h.engine.runTurn(userEvent('go'));

    const [first, second] = server.requests;
    expect(first?.headers.get('authorization')).toBe('Bearer sk-test');
    expect(first?.body).toMatchObject({ model: 'fake-model', temperature: 0.3, max_tokens: 256, top_p: 0.9 });
    const tools = first?.body.tools;
    expect(Array.isArray(tools) && tools.map((t) => JSON.parse(JSON.stringify(t)))).toEqual(
      ECHO_EXPORTS.map((e) => ({ type: 'function', function: { name: `echo__${e.name}`, description: e.description, parameters: e.parameters } })),
    );
    expect(second?.body.messages).toEqual([
      { role: 'system', content: 'You are the tester.' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'echo__say', arguments: '{"text":"hi"}' } }] },
      { role: 'tool', tool_call_id: 'call_x', content: 'hi' },
    ]);
  });

  test('the model is offered exactly the catalog left by step middleware', async () => {
    const server = fakeOpenAI([text('ok')]);
    servers.push(server);
    const h = await startEngine(compatiblePlan(server.url, { extensions: [fixtureExtension('filter', 'catalog-filter.ts', { allow: ['echo__json'], describe: 'edited' })] }));
    harnesses.push(h);
    await h.engine.runTurn(userEvent('go'));
    const tools = server.requests[0]?.body.tools;
    expect(Array.isArray(tools) && tools.map((t) => JSON.parse(JSON.stringify(t)).function)).toEqual([
      { name: 'echo__json', description: 'edited', parameters: ECHO_EXPORTS[2]?.parameters },
    ]);
  });

  test('broken argument JSON is repaired when unambiguous, otherwise reported to the model and never run', async () => {
    const server = fakeOpenAI([toolCall('echo__json', '{"count": 2,}', 'call_repair'), toolCall('echo__json', 'count=2', 'call_broken'), text('ok')]);
    servers.push(server);
    const h = await startEngine(compatiblePlan(server.url));
    harnesses.push(h);
    await h.engine.runTurn(userEvent('go'));

    const [repaired, broken] = storedToolResults(h.paths);
    expect(repaired?.output).toEqual({ type: 'json', value: { received: { count: 2 } } });
    const error = errorOf(broken?.output);
    expect(error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect(String(error?.message)).toContain('arguments are not valid JSON');
    expect(echoCalls).not.toContain('json:call_broken');
    // The model sees the code and the suggestion in the tool message of the next request.
    const messages = server.requests[2]?.body.messages;
    const toolMessage = Array.isArray(messages) ? messages.map((m) => JSON.parse(JSON.stringify(m))).find((m) => m.tool_call_id === 'call_broken') : undefined;
    expect(JSON.parse(toolMessage.content)).toMatchObject({ status: 'error', error: { code: 'E_TOOL_INVALID_ARGS', suggestion: expect.any(String) } });
    expect(h.runtimeEvents.filter((e) => e.type === 'tool.called').map((e) => (e.type === 'tool.called' ? e.args : null))).toEqual([{ count: 2 }, {}]);
  });

  test('arguments cut off mid-string are E_TOOL_INVALID_ARGS and the handler never runs (no guessed completion)', async () => {
    const server = fakeOpenAI([toolCall('echo__say', '{"text": "rm -rf ./build', 'call_cut'), text('ok')]);
    servers.push(server);
    const h = await startEngine(compatiblePlan(server.url));
    harnesses.push(h);
    await h.engine.runTurn(userEvent('go'));

    const [cut] = storedToolResults(h.paths);
    const error = errorOf(cut?.output);
    expect(error?.code).toBe('E_TOOL_INVALID_ARGS');
    expect(String(error?.message)).toContain('ends inside a string');
    expect(echoCalls).not.toContain('say:call_cut');
  });

  test('a 5xx without retries left ends the turn with a structured model error', async () => {
    const server = fakeOpenAI([{ status: 500, body: { error: { message: 'upstream exploded' } } }]);
    servers.push(server);
    const h = await startEngine(compatiblePlan(server.url, { model: { provider: 'openai-compatible', model: 'm', endpoint: server.url, options: { maxRetries: 0 } } }));
    harnesses.push(h);
    const result = await h.engine.runTurn(userEvent('go'));
    expect(result.finishReason).toBe('error');
    expect(result.error?.code).toBe('E_MODEL_API');
    expect(result.error?.message).toContain('HTTP 500');
  });

  test('401 is E_MODEL_AUTH with a suggestion', async () => {
    const server = fakeOpenAI([{ status: 401, body: { error: { message: 'bad key' } } }]);
    servers.push(server);
    const h = await startEngine(compatiblePlan(server.url));
    harnesses.push(h);
    const result = await h.engine.runTurn(userEvent('go'));
    expect(result.error).toMatchObject({ code: 'E_MODEL_AUTH', suggestion: 'Check the Model apiKey.' });
    expect(server.requests).toHaveLength(1); // 4xx other than 429 are not retried
  });

  test('a dropped connection (network error) is retried', async () => {
    let connections = 0;
    const http: HttpServer = createServer((request, response) => {
      connections++;
      if (connections === 1) {
        request.socket.destroy(); // no response at all
        return;
      }
      let raw = '';
      request.on('data', (chunk) => (raw += chunk));
      request.on('end', async () => {
        const answer = streamed(text('after the reset').body);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(await answer.text());
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const address = http.address();
    if (typeof address !== 'object' || address === null) throw new Error('the fake server has no TCP address');
    const port = address.port;
    try {
      const url = `http://127.0.0.1:${port}/v1`;
      const h = await startEngine(compatiblePlan(url, { model: { provider: 'openai-compatible', model: 'm', endpoint: url, options: { maxRetries: 1 } } }));
      harnesses.push(h);
      const result = await h.engine.runTurn(userEvent('go'));
      expect(result.responseText).toBe('after the reset');
      expect(connections).toBe(2);
    } finally {
      http.close();
    }
  });
});
