/**
 * Inter-agent replies sent before the callee's fsync (issue 12, `fsync: batch`), over the real
 * agent entry in a real child process with the test as its orchestrator:
 * - a callee answers another agent before its turn's sync, marked `unsynced`, and ahead of the
 *   turn's last runtime events; an HTTP caller (or any agent under `fsync: never`) gets an
 *   unmarked answer, behind them;
 * - an agent holding an `unsynced` reply lets nothing resting on it leave — its own answer and
 *   ack, its next message to another agent — until `runtime.reply.synced` comes.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSwarmPlan } from '../../shared/config/swarm-plan.ts';
import { planAgent } from '../../shared/config/agent-plan.ts';
import { EnvIssues } from '../../shared/config/env-issues.ts';
import { loadBundle } from '../../shared/config/load-bundle.ts';
import { inReplyToOf, makeEvent, ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { type AgentAssignment, controlEvent } from '../../shared/ipc/control-protocol.ts';
import { makeReplyEvent } from '../../shared/ipc/reply-events.ts';
import type { SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { UnsyncedDependencies } from '../../agent-process/shell/unsynced-dependencies.ts';
import { type AgentChild, spawnAgent } from './helpers/agent-child.ts';

const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-unsynced-'));
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));

const bundle = await loadBundle(join(import.meta.dir, '../fixtures/e2e/swarm'));
const e2eSwarm = buildSwarmPlan(bundle, 'e2e');
const batchSwarm: SwarmPlan = { ...e2eSwarm, durability: { ...e2eSwarm.durability, fsync: 'batch' } };
const neverSwarm: SwarmPlan = { ...batchSwarm, durability: { ...batchSwarm.durability, fsync: 'never' } };
/** alpha on its scripted mock model, with one more rule: two requests in a row. */
const alpha = planAgent(bundle, 'e2e', 'alpha', process.env, new EnvIssues());
const chainRule = {
  regex: '^chain (\\w+) (\\w+)$',
  toolCalls: [{ name: 'agents__request', args: { target: '{{match.1}}', input: 'first' } }],
  then: { toolCalls: [{ name: 'agents__request', args: { target: '{{match.2}}', input: 'second' } }], then: 'both answered' },
};
const rules = alpha.model.options.rules;
const alphaPlan = { ...alpha, model: { ...alpha.model, options: { ...alpha.model.options, rules: [chainRule, ...(Array.isArray(rules) ? rules : [])] } } };

const children: AgentChild[] = [];
afterAll(() => {
  for (const child of children) child.kill();
});

async function assignedAlpha(instanceKey: string, swarmPlan: SwarmPlan = batchSwarm): Promise<AgentChild> {
  const child = spawnAgent();
  children.push(child);
  await child.next('runtime.ready');
  const assignment: AgentAssignment = { role: 'agent', agent: 'alpha', instanceKey, stateRoot, agentPlan: alphaPlan, swarmPlan };
  child.send(controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, assignment));
  await child.next('runtime.started');
  return child;
}

function fromUser(input: string, instanceKey: string, correlationId: string): AgentEvent {
  return makeEvent('api.input', { kind: 'api', name: 'test' }, { input, instanceKey, replyTo: { target: ORCHESTRATOR, correlationId } });
}

/** The request the agent sent to `target` (an `agent.request` event). */
function requestTo(child: AgentChild, target: string, input: string): Promise<AgentEvent> {
  return child.find(`a request to ${target} (${input})`, (event) => event.type === 'agent.request' && event.input === input && event.replyTo !== undefined);
}

function answerUnsynced(child: AgentChild, request: AgentEvent, from: string, output: string): string {
  const correlationId = request.replyTo?.correlationId ?? '';
  child.send(makeReplyEvent(correlationId, { kind: 'agent', name: from, instanceKey: request.instanceKey ?? 'k' }, { status: 'ok', output, unsynced: true }));
  return correlationId;
}

/** Whether it has observed a runtime event of `type` (the agent's `runtime.observe` batches). */
function observed(child: AgentChild, type: string, toolInput?: string): boolean {
  return child.received().some(
    (event) =>
      event.type === 'runtime.observe' &&
      Array.isArray(event.metadata?.events) &&
      event.metadata.events.some((e) => typeof e === 'object' && e !== null && !Array.isArray(e) && e.type === type && (toolInput === undefined || JSON.stringify(e.args ?? {}).includes(toolInput))),
  );
}

/** Long enough for an agent that did not wait to have sent what it would (it takes ~1 ms). */
const QUIET_MS = 300;

describe('a callee answering another agent', () => {
  test('under fsync: batch the answer leaves before the turn’s sync, marked unsynced, ahead of the ack', async () => {
    const child = await assignedAlpha('callee');
    const request = makeEvent('agent.request', { kind: 'agent', name: 'beta', instanceKey: 'k' }, { input: 'hello', instanceKey: 'callee', replyTo: { target: 'beta', correlationId: 'corr-agent' } });
    child.send(request);
    const reply = await child.reply('corr-agent');
    expect(reply.metadata).toMatchObject({ status: 'ok', unsynced: true });
    await child.next('runtime.turn.completed');
    const order = child.received().map((event) => (inReplyToOf(event) === 'corr-agent' ? 'reply' : event.type));
    expect(order.indexOf('reply')).toBeLessThan(order.indexOf('runtime.turn.completed'));
    // Ahead of the turn's last runtime events, which follow right behind it (ShellChannel.post).
    const lastBatch = child.received().findIndex((event) => event.type === 'runtime.observe' && JSON.stringify(event.metadata).includes('"turn.completed"'));
    expect(order.indexOf('reply')).toBe(lastBatch - 1);
  });

  test('an HTTP caller’s answer waits for the sync: not marked', async () => {
    const child = await assignedAlpha('http-callee');
    child.send(fromUser('hello', 'http-callee', 'corr-http'));
    const reply = await child.reply('corr-http');
    expect(reply.metadata?.status).toBe('ok');
    expect(reply.metadata?.unsynced).toBeUndefined();
    // Behind the turn's runtime events: a streamed answer's end follows them.
    const order = child.received().map((event) => (inReplyToOf(event) === 'corr-http' ? 'reply' : JSON.stringify(event.metadata ?? {}).includes('"turn.completed"') ? 'last batch' : event.type));
    expect(order.indexOf('last batch')).toBeLessThan(order.indexOf('reply'));
  });

  test('under fsync: never there is no sync to wait for: not marked', async () => {
    const child = await assignedAlpha('never-callee', neverSwarm);
    child.send(makeEvent('agent.request', { kind: 'agent', name: 'beta', instanceKey: 'k' }, { input: 'hello', instanceKey: 'never-callee', replyTo: { target: 'beta', correlationId: 'corr-never' } }));
    const reply = await child.reply('corr-never');
    expect(reply.metadata?.unsynced).toBeUndefined();
  });
});

describe('an agent holding an unsynced reply', () => {
  test('answers its own caller, and acks, only after runtime.reply.synced', async () => {
    const child = await assignedAlpha('asker');
    child.send(fromUser('ask beta ping', 'asker', 'corr-user'));
    const request = await requestTo(child, 'beta', 'ping');
    // A message to another agent goes ahead of the runtime events of its loop turn (ShellChannel.post).
    const called = await child.find('the batch with tool.called', (event) => event.type === 'runtime.observe' && JSON.stringify(event.metadata).includes('"tool.called"'));
    const sent = child.received();
    expect(sent.indexOf(request)).toBe(sent.indexOf(called) - 1);
    const correlationId = answerUnsynced(child, request, 'beta', 'pong');
    await child.find('the turn’s end', () => observed(child, 'turn.completed'));
    await Bun.sleep(QUIET_MS);
    expect(child.received().some((event) => inReplyToOf(event) === 'corr-user')).toBe(false);
    expect(child.received().some((event) => event.type === 'runtime.turn.completed')).toBe(false);

    child.send(controlEvent('runtime.reply.synced', ORCHESTRATOR_SOURCE, { correlationId }));
    const reply = await child.reply('corr-user');
    expect(reply.input).toBe('beta said: pong');
    await child.next('runtime.turn.completed');
  });

  test('sends its next request to another agent only after runtime.reply.synced', async () => {
    const child = await assignedAlpha('chain');
    child.send(fromUser('chain beta gamma', 'chain', 'corr-chain'));
    const correlationId = answerUnsynced(child, await requestTo(child, 'beta', 'first'), 'beta', 'one');
    await child.find('the second call', () => observed(child, 'tool.called', 'second'));
    await Bun.sleep(QUIET_MS);
    expect(child.received().some((event) => event.type === 'agent.request' && event.input === 'second')).toBe(false);

    child.send(controlEvent('runtime.reply.synced', ORCHESTRATOR_SOURCE, { correlationId }));
    const second = await requestTo(child, 'gamma', 'second');
    child.send(makeReplyEvent(second.replyTo?.correlationId ?? '', { kind: 'agent', name: 'gamma', instanceKey: 'chain' }, { status: 'ok', output: 'two' }));
    expect((await child.reply('corr-chain')).input).toBe('both answered');
  });
});

describe('UnsyncedDependencies', () => {
  test('waits for every reply’s notice; one that never comes ends the wait after its deadline, reported', async () => {
    const overdue: string[] = [];
    const deps = new UnsyncedDependencies((correlationId) => overdue.push(correlationId), 50);
    deps.add('one');
    deps.add('two');
    let settled = false;
    const waiting = deps.settled().then(() => {
      settled = true;
    });
    deps.synced('one');
    deps.synced('unknown');
    await Bun.sleep(0);
    expect(settled).toBe(false);
    await waiting;
    expect(overdue).toEqual(['two']);
    expect(deps.count).toBe(0);
  });
});
