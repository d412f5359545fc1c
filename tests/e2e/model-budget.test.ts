/**
 * Swarm.spec.policy.budget through a real daemon on the priced mock model: the orchestrator
 * admits every model call of every agent against the turn's trace, the instance key's day and the
 * swarm's day; a call that would exceed fails with BUDGET_EXCEEDED (the caller sees the code), or
 * waits for a person with onExceeded: ask.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Daemon, REPO_ROOT, sharedDaemon, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/cost');

interface Answer {
  status?: string;
  output?: string;
  traceId?: string;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

async function send(daemon: Daemon, input: string, instanceKey: string): Promise<Answer> {
  return (await daemon.send({ input, instanceKey })).body as Answer;
}

describe('perTurn: one trace across agents', () => {
  const daemon = sharedDaemon(BUNDLE, { args: ['--swarm', 'turn-budget'] });

  test('a turn within the budget answers', async () => {
    expect((await send(daemon(), 'hello', 't-1')).output).toBe('alpha got: hello');
  });

  test("the callee's call is refused for what the caller used in the same trace; the caller sees BUDGET_EXCEEDED", async () => {
    const answer = await send(daemon(), 'ask beta hi', 't-2');
    expect(answer.status).toBe('error');
    expect(answer.error?.code).toBe('BUDGET_EXCEEDED');
    expect(answer.error?.details).toMatchObject({ scope: 'perTurn', measure: 'tokens', limit: 60 });
    const refusal = daemon().logs.find((l) => l.msg === 'model call refused: budget exceeded' && l.agent === 'beta');
    expect(refusal).toMatchObject({ traceId: answer.traceId, scope: 'perTurn' });
  });

  test('through the OpenAI-compatible front door the refusal is a 429 with code BUDGET_EXCEEDED', async () => {
    const response = await daemon().api('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'alpha', user: 't-openai', messages: [{ role: 'user', content: 'ask beta hi' }] }),
    });
    expect(response.status).toBe(429);
    const body = (await response.json()) as { error: { code: string; type: string; message: string } };
    expect(body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', type: 'insufficient_quota' });
    expect(body.error.message).toContain('perTurn.tokens');
  });

  test('the next turn is a new trace with a fresh turn budget', async () => {
    expect((await send(daemon(), 'hello again', 't-3')).output).toBe('alpha got: hello again');
  });
});

describe('perInstancePerDay and perSwarmPerDay', () => {
  const stateRoot = tempStateRoot();
  let daemon: Daemon | undefined;
  afterAll(async () => {
    await daemon?.stop();
    daemon?.cleanup();
  });

  test('an instance key stops at its day budget while others go on, until the swarm day budget stops them all; a restart keeps the day', async () => {
    daemon = await startDaemon(BUNDLE, { args: ['--swarm', 'day-budget'], stateRoot });
    expect((await send(daemon, 'hello', 'd-1')).output).toBe('alpha got: hello');
    expect((await send(daemon, 'hello', 'd-1')).output).toBe('alpha got: hello');
    const third = await send(daemon, 'hello', 'd-1');
    expect(third.error?.code).toBe('BUDGET_EXCEEDED');
    expect(third.error?.details).toMatchObject({ scope: 'perInstancePerDay', limit: 100 });
    expect((await send(daemon, 'hello', 'd-2')).output).toBe('alpha got: hello');
    expect((await send(daemon, 'hello', 'd-3')).output).toBe('alpha got: hello');
    const fourth = await send(daemon, 'hello', 'd-4');
    expect(fourth.error?.code).toBe('BUDGET_EXCEEDED');
    expect(fourth.error?.details).toMatchObject({ scope: 'perSwarmPerDay', measure: 'tokens', limit: 160 });

    await daemon.stop();
    daemon = await startDaemon(BUNDLE, { args: ['--swarm', 'day-budget'], stateRoot });
    const afterRestart = await send(daemon, 'hello', 'd-5');
    expect(afterRestart.error?.code).toBe('BUDGET_EXCEEDED');
    expect(afterRestart.error?.details).toMatchObject({ scope: 'perSwarmPerDay' });
  });
});

describe('onExceeded: ask', () => {
  const daemon = sharedDaemon(BUNDLE, { args: ['--swarm', 'ask-budget'], env: { GOONDAN_APPROVALS: 'http' } });

  async function decideNext(decision: 'approve' | 'deny'): Promise<void> {
    let pending: Array<{ id: string; toolName: string; reason: string }> = [];
    await waitUntil(
      async () => {
        const body = (await (await daemon().api('/v1/approvals')).json()) as { approvals: typeof pending };
        pending = body.approvals;
        return pending.length > 0;
      },
      'a pending budget approval in GET /v1/approvals',
      30_000,
    );
    const [approval] = pending;
    expect(approval?.toolName).toBe('model-call');
    expect(approval?.reason).toContain('budget perTurn.cost');
    const decided = await daemon().api(`/v1/approvals/${approval?.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision }) });
    expect(decided.status).toBe(200);
  }

  test('an approved call goes ahead; a denied one fails with BUDGET_EXCEEDED', async () => {
    const approved = send(daemon(), 'hello', 'a-1');
    await decideNext('approve');
    expect((await approved).output).toBe('alpha got: hello');
    const denied = send(daemon(), 'hello', 'a-2');
    await decideNext('deny');
    const answer = await denied;
    expect(answer.error?.code).toBe('BUDGET_EXCEEDED');
    expect(answer.error?.message).toContain('refused');
  });
});
