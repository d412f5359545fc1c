/**
 * Routing in the orchestrator core (ARCHITECTURE §2, §5) over the in-memory transport: auto-spawn,
 * the start-up protocol before delivery, instance keys, and refusals of unknown targets.
 */
import { describe, expect, test } from 'bun:test';
import { DEFAULT_INSTANCE_KEY } from '../../orchestrator/routing/default-target.ts';
import { coreFixtures } from './helpers/core-fixture.ts';
import { eventually, settled } from './helpers/eventually.ts';

const fixture = coreFixtures();

describe('auto-spawn and the start-up protocol', () => {
  test('the first event for an instance spawns it; the child is assigned its identity and a schema-valid plan', async () => {
    const f = fixture();
    const reply = f.ask('a', 'hello', { instanceKey: 'k1' });
    expect(f.launcher.children).toHaveLength(1);
    const child = await f.launcher.waitForAssigned('a', 'k1');
    expect(child.assignmentProblems).toBeUndefined();
    expect(child.assignment).toMatchObject({ role: 'agent', agent: 'a', instanceKey: 'k1', stateRoot: f.stateRoot, swarmPlan: { name: 'core-test' } });
    const work = await child.waitForWork(1);
    child.runTurn(work, 'hi there');
    expect(await settled(reply, 'the reply to hello')).toMatchObject({ status: 'ok', output: 'hi there' });
    // A second event reuses the running process.
    f.tell('a', 'again', { instanceKey: 'k1' });
    await child.waitForWork(2);
    expect(f.launcher.children).toHaveLength(1);
  });

  test('events for an instance still starting follow its runtime.assign at once, in arrival order; it runs them once started', async () => {
    const f = fixture({ behaviour: { autoReady: false, autoStart: false } });
    f.tell('a', 'one');
    f.tell('a', 'two');
    const third = f.ask('a', 'three');
    const child = await f.launcher.waitForLaunch(1);
    child.ready();
    await child.waitFor((m) => m.type === 'event' && m.payload.type === 'runtime.assign', 'runtime.assign');
    // Sent with the assignment, not after runtime.started: a new instance's first reply does not wait
    // for that round trip. Nothing left the inbox: they are still unacked.
    await eventually(() => child.workReceived().length === 3, 'the three events right after the assignment', () => f.launcher.describe());
    const kinds = child.events().map((e) => (e.type === 'runtime.assign' ? 'assign' : e.input));
    expect(kinds).toEqual(['assign', 'one', 'two', 'three']);
    expect(child.work()).toHaveLength(0);
    expect(f.core.delivery.pendingCount({ agent: 'a', instanceKey: DEFAULT_INSTANCE_KEY })).toBe(3);
    f.tell('a', 'four');
    await eventually(() => child.workReceived().length === 4, 'a fourth event sent before runtime.started', () => f.launcher.describe());
    child.started();
    await child.waitForWork(4);
    expect(child.work().map((e) => e.input)).toEqual(['one', 'two', 'three', 'four']);
    const work = child.work()[2];
    if (!work) throw new Error('no third event');
    child.runTurn(work, 'done');
    expect(await settled(third, 'the reply to three')).toMatchObject({ status: 'ok', output: 'done' });
  });
});

describe('instance keys', () => {
  test(`an external submission without an instanceKey goes to '${DEFAULT_INSTANCE_KEY}'`, async () => {
    const f = fixture();
    f.launcher.behaviour.answer = (event) => `got ${event.input}`;
    const submitted = f.core.submit({ agent: 'b', input: 'x', source: { kind: 'api', name: 'test' }, wait: false });
    expect(submitted.instanceKey).toBe(DEFAULT_INSTANCE_KEY);
    const child = await f.launcher.waitForAssigned('b', DEFAULT_INSTANCE_KEY);
    expect((await child.waitForWork(1)).instanceKey).toBe(DEFAULT_INSTANCE_KEY);
  });

  test("an inter-agent request without an instanceKey goes to the caller's own instance (ARCHITECTURE §5)", async () => {
    const f = fixture();
    const { child: caller, turn } = await f.runningTurn('a', 'k1');
    f.launcher.behaviour.answer = (event) => `b saw ${event.instanceKey}`;
    const request = caller.request('b', { during: turn });
    const callee = await f.launcher.waitForAssigned('b', 'k1');
    expect((await callee.waitForWork(1)).instanceKey).toBe('k1');
    expect(await caller.waitForReply(request)).toMatchObject({ status: 'ok', output: 'b saw k1' });
    expect(f.launcher.assigned('b', DEFAULT_INSTANCE_KEY)).toHaveLength(0);
  });

  test('an inter-agent request that names an instanceKey goes to that instance', async () => {
    const f = fixture();
    const { child: caller, turn } = await f.runningTurn('a', 'k1');
    const request = caller.request('b', { during: turn, instanceKey: 'k1/other' });
    const callee = await f.launcher.waitForAssigned('b', 'k1/other');
    callee.runTurn(await callee.waitForWork(1), 'from other');
    expect(await caller.waitForReply(request)).toMatchObject({ status: 'ok', output: 'from other' });
  });
});

describe('unknown targets', () => {
  test('a request to an agent outside the swarm is answered AGENT_NOT_FOUND and nothing is spawned', async () => {
    const f = fixture();
    const { child: caller, turn } = await f.runningTurn('a', 'k');
    const request = caller.request('nobody', { during: turn });
    const outcome = await caller.waitForReply(request);
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({ code: 'AGENT_NOT_FOUND', category: 'user' });
    expect(outcome.error?.message).toContain("'nobody'");
    expect(f.launcher.children).toHaveLength(1);
    expect(f.core.router.pending.size).toBe(0);
  });

  test('a send to an agent outside the swarm is answered with runtime.error naming the event', async () => {
    const f = fixture();
    const { child: caller, turn } = await f.runningTurn('a', 'k');
    const sent = caller.send('nobody', { during: turn });
    const message = await caller.waitFor((m) => m.type === 'event' && m.payload.type === 'runtime.error', 'runtime.error');
    expect(message.type === 'event' ? message.payload.metadata : undefined).toMatchObject({ eventId: sent.id, error: { code: 'AGENT_NOT_FOUND' } });
    expect(f.launcher.children).toHaveLength(1);
  });
});

describe('Swarm.spec.policy.interAgent, enforced by the orchestrator whatever the agent process sends', () => {
  test("a request or a send to another tenant's instance is refused and nothing is spawned", async () => {
    const f = fixture();
    const { child: caller, turn } = await f.runningTurn('a', 'alice');
    const request = caller.request('b', { during: turn, instanceKey: 'bob' });
    expect((await caller.waitForReply(request)).error).toMatchObject({ code: 'INSTANCE_OUT_OF_SCOPE', details: { instanceKey: 'bob' } });
    const sent = caller.send('b', { during: turn, instanceKey: 'bob' });
    const message = await caller.waitFor((m) => m.type === 'event' && m.payload.type === 'runtime.error', 'runtime.error');
    expect(message.type === 'event' ? message.payload.metadata : undefined).toMatchObject({ eventId: sent.id, error: { code: 'INSTANCE_OUT_OF_SCOPE' } });
    expect(f.launcher.children).toHaveLength(1);
  });

  test('a message past maxHops is refused; one at the limit goes', async () => {
    const f = fixture();
    const { child: caller, turn } = await f.runningTurn('a', 'k');
    const over = caller.request('b', { during: turn, hops: 33 });
    expect((await caller.waitForReply(over)).error).toMatchObject({ code: 'HOP_LIMIT_EXCEEDED', details: { hops: 33, maxHops: 32 } });
    expect(f.launcher.children).toHaveLength(1);
    caller.request('b', { during: turn, hops: 32 });
    await f.launcher.waitForAssigned('b', 'k');
  });
});
