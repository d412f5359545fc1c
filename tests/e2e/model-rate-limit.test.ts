/**
 * Model.spec.rateLimit through a real daemon: one limiter in the orchestrator for every agent
 * process using the Model, against a fake OpenAI-compatible server on loopback that records when
 * each request arrives. Only lower bounds on spacing are asserted: a slow machine only widens them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';
import { streamed } from '../agent-process/helpers/chat-completion-stream.ts';
import { type Daemon, REPO_ROOT, startDaemon } from './daemon-harness.ts';

interface Arrival {
  model: string;
  at: number;
  status: number;
}

const RETRY_AFTER_SECONDS = 2;
// Longer than the 1 s spacing of requestsPerMinute: 60, so only maxConcurrent keeps calls from overlapping.
const METERED_DELAY_MS = 1500;

const arrivals: Arrival[] = [];
let meteredInFlight = 0;
let meteredMaxInFlight = 0;
let pausedCalls = 0;
let llm: Server<undefined>;
let bundle: string;
let daemon: Daemon;

/** Like the real API: server-sent chunks when the request asks for a stream (the engine always does). */
function completion(content: string, stream: boolean): Response {
  const body = {
    id: `chatcmpl-${arrivals.length}`,
    object: 'chat.completion',
    created: 1,
    model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
  };
  return stream ? streamed(body) : Response.json(body);
}

beforeAll(async () => {
  llm = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      const body = (await request.json()) as { model: string; messages: Array<{ content: unknown }>; stream?: boolean };
      const input = String(body.messages.at(-1)?.content);
      if (body.model === 'paused-model') {
        pausedCalls += 1;
        // The very first call is throttled: the provider asks everyone to wait.
        const status = pausedCalls === 1 ? 429 : 200;
        arrivals.push({ model: body.model, at: Date.now(), status });
        if (status === 429) return Response.json({ error: { message: 'slow down', type: 'rate_limit' } }, { status, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } });
        return completion(`paused says: ${input}`, body.stream === true);
      }
      arrivals.push({ model: body.model, at: Date.now(), status: 200 });
      meteredInFlight += 1;
      meteredMaxInFlight = Math.max(meteredMaxInFlight, meteredInFlight);
      await Bun.sleep(METERED_DELAY_MS);
      meteredInFlight -= 1;
      return completion(`metered says: ${input}`, body.stream === true);
    },
  });
  bundle = mkdtempSync(join(tmpdir(), 'goondan-rate-'));
  const yaml = readFileSync(join(REPO_ROOT, 'tests/fixtures/e2e/rate-limit/goondan.yaml'), 'utf8');
  writeFileSync(join(bundle, 'goondan.yaml'), yaml.replaceAll('FAKE_LLM_URL', `http://127.0.0.1:${llm.port}/v1`));
  daemon = await startDaemon(bundle);
});

afterAll(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  llm?.stop(true);
  rmSync(bundle, { recursive: true, force: true });
});

describe('a provider 429 with Retry-After pauses the Model for every agent', () => {
  test('after one agent is throttled, no agent using that Model reaches the provider before Retry-After; all answer afterwards', async () => {
    const first = daemon.send({ agent: 'p1', input: 'one', instanceKey: 'rl' });
    await daemon.waitForLog('the orchestrator pausing the Model after the 429', (l) => l.msg === 'provider throttled the model: paused for every agent', 30_000);
    const throttledAt = arrivals.find((a) => a.status === 429)?.at ?? 0;
    const others = await Promise.all([daemon.send({ agent: 'p2', input: 'two', instanceKey: 'rl' }), daemon.send({ agent: 'p3', input: 'three', instanceKey: 'rl' })]);
    const answers = [await first, ...others].map((a) => a.body.output);
    expect(answers).toEqual(['paused says: one', 'paused says: two', 'paused says: three']);
    const after = arrivals.filter((a) => a.model === 'paused-model' && a.status === 200);
    expect(after).toHaveLength(3);
    // Every later call (the throttled agent's retry and the other agents' calls) waited out Retry-After.
    for (const arrival of after) expect(arrival.at - throttledAt).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS * 1000 - 5);
  });
});

describe('requestsPerMinute and maxConcurrent are shared by all agents of the Model', () => {
  test('requestsPerMinute: 60 spaces calls of three concurrent agents about a second apart (no burst); maxConcurrent: 1 keeps one in flight', async () => {
    const answers = await Promise.all(['m1', 'm2', 'm3'].map((agent) => daemon.send({ agent, input: `hi ${agent}`, instanceKey: 'rl' })));
    expect(answers.map((a) => a.body.output)).toEqual(['metered says: hi m1', 'metered says: hi m2', 'metered says: hi m3']);
    const times = arrivals.filter((a) => a.model === 'metered-model').map((a) => a.at).sort((a, b) => a - b);
    expect(times).toHaveLength(3);
    // One second's share is one request: the bucket never holds a burst of three.
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(1000 - 5);
    expect((times[2] ?? 0) - (times[1] ?? 0)).toBeGreaterThanOrEqual(1000 - 5);
    expect(meteredMaxInFlight).toBe(1);
  });
});
