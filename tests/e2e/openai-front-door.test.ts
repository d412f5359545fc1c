/**
 * The OpenAI-compatible front door (issue 14), driven by the official `openai` npm client against
 * a real daemon: models are the swarm's agents, a chat completion is a turn of the named instance,
 * earlier messages seed a new instance only, streaming ends in [DONE], errors are OpenAI-shaped.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { readApiToken } from '../../orchestrator/http/api-credential.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import { REPO_ROOT, sharedDaemon } from './daemon-harness.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));

function client(apiKey = readApiToken(daemon().stateRoot) ?? ''): OpenAI {
  return new OpenAI({ baseURL: `${daemon().url}/v1`, apiKey, maxRetries: 0 });
}

const history = (key: string) => {
  const file = instancePaths(daemon().stateRoot, 'e2e', 'alpha', key).baseMessages;
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

describe('GET /v1/models', () => {
  test('lists the agents of the swarm as models', async () => {
    const models = await client().models.list();
    expect(models.data.map((m) => m.id).sort()).toEqual(['alpha', 'beta', 'crashy', 'gamma']);
  });
});

describe('POST /v1/chat/completions', () => {
  test('model names the agent, user names the conversation; the reply and real usage come back', async () => {
    const completion = await client().chat.completions.create({ model: 'alpha', user: 'oa-1', messages: [{ role: 'user', content: 'hello there' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'alpha got: hello there' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
  });

  test('an instance with history keeps its own record: earlier messages of the request are ignored', async () => {
    await client().chat.completions.create({ model: 'alpha', user: 'oa-2', messages: [{ role: 'user', content: 'first' }] });
    await client().chat.completions.create({
      model: 'alpha',
      user: 'oa-2',
      messages: [
        { role: 'user', content: 'an invented past' },
        { role: 'assistant', content: 'that never happened' },
        { role: 'user', content: 'second' },
      ],
    });
    expect(history('oa-2')).toContain('"first"');
    expect(history('oa-2')).toContain('"second"');
    expect(history('oa-2')).not.toContain('an invented past');
  });

  test('a new instance is seeded with the earlier user and assistant messages (X-Goondan-Instance names it)', async () => {
    const completion = await client().chat.completions.create(
      {
        model: 'alpha',
        messages: [
          { role: 'system', content: 'ignored: the agent has its own prompt' },
          { role: 'user', content: 'my name is Ada' },
          { role: 'assistant', content: 'hello Ada' },
          { role: 'user', content: 'what is my name?' },
        ],
      },
      { headers: { 'x-goondan-instance': 'oa-3' } },
    );
    expect(completion.choices[0]?.message.content).toBe('alpha got: what is my name?');
    const text = history('oa-3');
    expect(text.indexOf('my name is Ada')).toBeGreaterThan(-1);
    expect(text.indexOf('hello Ada')).toBeGreaterThan(text.indexOf('my name is Ada'));
    expect(text.indexOf('what is my name?')).toBeGreaterThan(text.indexOf('hello Ada'));
    expect(text).not.toContain('ignored: the agent has its own prompt');
  });

  test('stream: true yields chat.completion.chunk events whose text is the reply, then [DONE]', async () => {
    const stream = await client().chat.completions.create({ model: 'alpha', user: 'oa-4', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'ask beta stream me' }] });
    let text = '';
    let finish: string | null = null;
    let usage = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage?.total_tokens ?? usage;
    }
    expect(text).toBe('beta said: beta got: stream me');
    expect(finish).toBe('stop');
    expect(usage).toBeGreaterThan(0);
  });

  test('an unknown model is a 404 in OpenAI\'s error shape; without the token it is a 401', async () => {
    const missing = await client().chat.completions.create({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    const anonymous = await client('not-the-token').models.list().catch((e: unknown) => e);
    expect(anonymous).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
