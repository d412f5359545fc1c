/**
 * Every process boundary validates what it receives (ARCHITECTURE §2): whatever a child sends, the
 * core never crashes; a message that is not a valid IPC message is dropped by the transport, and a
 * control event whose payload fails its type's schema is dropped and counted in
 * goondan_malformed_messages_total.
 */
import { describe, expect, test } from 'bun:test';
import { ORCHESTRATOR, makeEvent } from '../../shared/ipc/control-events.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { type CoreFixture, coreFixtures } from './helpers/core-fixture.ts';
import { eventually, settled } from './helpers/eventually.ts';
import type { FakeChild } from './helpers/fake-child.ts';

const fixture = coreFixtures();

function malformedCount(f: CoreFixture): number {
  const line = f.metrics().split('\n').find((l) => l.startsWith('goondan_malformed_messages_total{source="ipc"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** A control event that passes the wire schema but carries `payload` as its metadata. */
function rawControl(child: FakeChild, type: string, payload: JsonObject): void {
  child.post(ORCHESTRATOR, makeEvent(type, child.source, { metadata: payload }));
}

/** A round trip through the core: proves it still routes after whatever came before. */
async function stillServes(f: CoreFixture, child: FakeChild, input: string): Promise<void> {
  const reply = f.ask('a', input, { instanceKey: 'k' });
  const work = await child.waitFor((m) => m.type === 'event' && m.payload.input === input, `the event '${input}'`);
  if (work.type !== 'event') throw new Error('not an event');
  child.runTurn(work.payload, `answered ${input}`);
  expect(await settled(reply, `the reply to '${input}'`)).toMatchObject({ status: 'ok', output: `answered ${input}` });
}

describe('input that is not an IPC message', () => {
  test('garbage from a child is dropped by the transport; the core keeps serving that child', async () => {
    const f = fixture();
    const { child } = await f.runningTurn('a', 'k');
    const garbage: unknown[] = [
      'garbage',
      null,
      42,
      [],
      {},
      { type: 'event', from: 'a', to: ORCHESTRATOR },
      { type: 'event', from: 'a', to: ORCHESTRATOR, payload: { id: 'e1', type: 'agent.request' } },
      { type: 'telepathy', from: 'a', to: ORCHESTRATOR, payload: {} },
      { type: 'shutdown', from: 'a', to: ORCHESTRATOR, payload: { gracePeriodMs: -1, reason: 'bored' } },
      { type: 'event', from: 'a', to: 'b', payload: { ...makeEvent('agent.request', child.source), replyTo: { target: 'a' } } },
    ];
    for (const raw of garbage) child.transport.sendRaw(raw);
    await stillServes(f, child, 'after the garbage');
    expect(f.launcher.invalid.map((i) => i.pid)).toEqual(garbage.map(() => child.pid));
    expect(f.launcher.children).toHaveLength(1);
    expect(f.process('a', 'k').alive).toBe(true);
    // Nothing of it was routed anywhere.
    expect(f.core.supervisor.list().map((p) => p.key)).toEqual(['a:k']);
  });

  test('a shutdown message sent by a child is ignored', async () => {
    const f = fixture();
    const { child } = await f.runningTurn('a', 'k');
    child.transport.send({ type: 'shutdown', from: 'a', to: ORCHESTRATOR, payload: { gracePeriodMs: 0, reason: 'restart' } });
    await f.waitForLog((l) => l.msg === 'dropped a shutdown message sent by a child', 'the shutdown from a child dropped');
    await stillServes(f, child, 'after the shutdown message');
  });
});

describe('control events whose payload fails its schema', () => {
  test('are dropped and counted: a turn acknowledgement without a valid eventId acknowledges nothing', async () => {
    const f = fixture();
    const { child, turn } = await f.runningTurn('a', 'k');
    rawControl(child, 'runtime.turn.completed', { eventId: 42 });
    rawControl(child, 'runtime.turn.started', {});
    rawControl(child, 'runtime.turn.completed', { eventId: turn.id, unexpected: true });
    rawControl(child, 'runtime.no-such-type', {});
    rawControl(child, 'runtime.observe', { events: [{ type: 'turn.completed' }] });
    await stillServes(f, child, 'after the malformed control events');
    expect(malformedCount(f)).toBe(5);
    expect(f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'k' })).toBe(1);
    expect(f.logs.filter((l) => l.msg === 'dropped a malformed control event')).toHaveLength(4);
  });

  test('a runtime.observe batch: its valid events are published in order, a malformed one among them is dropped and counted', async () => {
    const f = fixture();
    const { child } = await f.runningTurn('a', 'k');
    const published: string[] = [];
    f.core.runtimeEvents.subscribe((event) => published.push(`${event.type} ${'turnId' in event ? String(event.turnId) : ''}`));
    const base = { timestamp: new Date().toISOString(), agentName: 'a', instanceKey: 'k', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    rawControl(child, 'runtime.observe', {
      events: [
        { ...base, type: 'turn.started', turnId: 'turn_1' },
        { type: 'step.started' },
        // Without the finishReason /metrics reads as a label, it is malformed too.
        { ...base, type: 'turn.completed', turnId: 'turn_0' },
        { ...base, type: 'turn.completed', turnId: 'turn_1', finishReason: 'text_response' },
      ],
    });
    await stillServes(f, child, 'after the batch');
    expect(published.slice(0, 2)).toEqual(['turn.started turn_1', 'turn.completed turn_1']);
    expect(malformedCount(f)).toBe(2);
    expect(f.logs.filter((l) => l.msg === 'dropped a malformed runtime event')).toHaveLength(2);
    expect(f.metrics()).toContain('result="text_response"');
  });

  test('a malformed start-up message is dropped and counted, and does not start the process', async () => {
    const f = fixture({ behaviour: { autoStart: false } });
    f.tell('a', 'queued', { instanceKey: 'k' });
    const child = await f.launcher.waitForAssigned('a', 'k');
    rawControl(child, 'runtime.started', { startupMs: -1 });
    rawControl(child, 'runtime.failed', { error: { code: 'lower case', message: 'x' }, retryable: false });
    rawControl(child, 'runtime.ready', { pid: 'me' });
    await f.waitForLog((l) => l.msg === 'dropped a malformed control event' && l.type === 'runtime.ready', 'the malformed runtime.ready dropped');
    expect(malformedCount(f)).toBe(3);
    const proc = f.process('a', 'k');
    expect(proc.ready).toBe(false);
    expect(proc.startFailure).toBeUndefined();
    expect(child.work()).toHaveLength(0);
    child.started();
    expect((await child.waitForWork(1)).input).toBe('queued');
  });
});

describe('powers a child does not have', () => {
  test('an agent process cannot decide an approval, not even its own tool call’s: refused, counted, still pending', async () => {
    const f = fixture({ httpApprovals: true });
    const { child } = await f.runningTurn('a', 'k');
    child.control('runtime.approval.request', { toolName: 'bash__exec', toolCallId: 'call_1', args: { command: 'rm -rf /data' }, reason: 'policy asks', timeoutMs: 60_000 });
    const pending = await eventually(() => f.core.approvals.list()[0], 'the approval to be pending', () => JSON.stringify(f.core.approvals.list()));
    const before = malformedCount(f);
    child.control('runtime.approval.decision', { id: pending.id, approved: true, scope: 'session' });
    await stillServes(f, child, 'after the self-approval');
    expect(f.core.approvals.list().map((approval) => approval.id)).toEqual([pending.id]);
    expect(malformedCount(f)).toBe(before + 1);
  });

  test('a runtime event in another instance’s name is dropped and counted: it reaches no stream and no account', async () => {
    const f = fixture();
    const { child } = await f.runningTurn('a', 'k');
    const published: string[] = [];
    f.core.runtimeEvents.subscribe((event) => published.push(`${event.agentName}:${event.instanceKey}:${event.type}`));
    const before = malformedCount(f);
    const event = (agentName: string, instanceKey: string) => ({ type: 'step.delta', text: 'injected', stepId: 'step_1', turnId: 'turn_1', timestamp: new Date().toISOString(), agentName, instanceKey, traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) });
    child.control('runtime.observe', { events: [event('b', 'victim'), event('a', 'victim'), event('a', 'k')] });
    await stillServes(f, child, 'after the forged events');
    expect(published.filter((line) => line.endsWith(':step.delta'))).toEqual(['a:k:step.delta']);
    expect(malformedCount(f)).toBe(before + 2);
  });
});
