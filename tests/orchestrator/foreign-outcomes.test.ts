/**
 * Cluster mode (orchestrator/routing/foreign-outcomes.ts): the owner of an instance tells the node
 * that accepted an event what became of it, when no reply carries that already — an event nobody
 * waited for, a reply whose waiter is gone on the owner too, an event given up — and the accepting
 * node records what it is told in its ledger. The e2e (tests/e2e/cluster-event-records.test.ts)
 * covers the paths a real cluster reaches in seconds; these are the rest.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLedger } from '../../orchestrator/delivery/event-ledger.ts';
import { ForeignOutcomes, SETTLED_EVENT_KEY } from '../../orchestrator/routing/foreign-outcomes.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { runtimeError } from '../../shared/errors/index.ts';
import { makeEvent } from '../../shared/ipc/control-events.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { AgentEvent } from '../../shared/types/events.ts';

const dir = mkdtempSync(join(tmpdir(), 'goondan-foreign-outcomes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answer: ReplyOutcome = { status: 'ok', output: 'the answer', turnId: 'turn_1' };
const apiEvent = (replyTo?: string): AgentEvent =>
  makeEvent('api.input', { kind: 'api', name: 'http' }, { input: 'hi', instanceKey: 'k1', ...(replyTo ? { replyTo: { target: 'orchestrator', correlationId: replyTo } } : {}) });

/** The owner ("nb") and what it sends; the accepting node ("na") and its ledger. */
function nodes() {
  const sent: Array<{ node: string; event: AgentEvent }> = [];
  const owner = new ForeignOutcomes({ nodeId: 'nb', send: (node, event) => sent.push({ node, event }) });
  const ledger = new EventLedger(join(dir, `${crypto.randomUUID()}.jsonl`), new FsyncPolicy('never'));
  const accepting = new ForeignOutcomes({ nodeId: 'na', send: () => {}, ledger });
  const accept = (event: AgentEvent) => ledger.accepted({ eventId: event.id, agent: 'alpha', instanceKey: 'k1', traceId: 'a'.repeat(32) });
  return { sent, owner, ledger, accepting, accept };
}

describe('ForeignOutcomes', () => {
  test('an event nobody waits for: its answer goes to the node that accepted it, which records it', () => {
    const { sent, owner, ledger, accepting, accept } = nodes();
    const event = apiEvent();
    accept(event);
    owner.delivered(event, 'alpha:k1', 'na');
    owner.answered(event.id, answer);
    expect(sent.map((s) => s.node)).toEqual(['na']);
    const notice = sent[0]?.event;
    if (!notice) throw new Error('no notice sent');
    expect(notice.metadata?.[SETTLED_EVENT_KEY]).toBe(event.id);
    // A notice has no waiter to go on to.
    expect(accepting.record(notice)).toBe(true);
    expect(ledger.get(event.id)).toMatchObject({ state: 'done', reply: { status: 'ok', output: 'the answer' } });
    // Once only.
    owner.answered(event.id, answer);
    expect(sent).toHaveLength(1);
  });

  test('a waited-for event: its reply carries the news; a reply whose waiter is gone on the owner becomes a notice', () => {
    const { sent, owner } = nodes();
    const waited = apiEvent('corr_1');
    owner.delivered(waited, 'alpha:k1', 'na');
    owner.answered(waited.id, answer);
    expect(sent).toEqual([]);

    const expired = apiEvent('corr_2');
    owner.delivered(expired, 'alpha:k1', 'na');
    const atOnce = (_eventId: string, notify: () => void) => notify();
    expect(owner.unclaimed('corr_2', answer, atOnce)).toBe(true);
    owner.answered(expired.id, answer);
    expect(sent.map((s) => s.event.metadata?.[SETTLED_EVENT_KEY])).toEqual([expired.id]);
    expect(owner.unclaimed('corr_unknown', answer, atOnce)).toBe(false);
  });

  test('an event given up is recorded dead with its reason and code', async () => {
    const { sent, owner, ledger, accepting, accept } = nodes();
    const event = apiEvent();
    accept(event);
    owner.delivered(event, 'alpha:k1', 'na');
    owner.dead(event.id, 'the instance was deleted', runtimeError('INSTANCE_DELETED', 'the instance was deleted'));
    const notice = sent[0]?.event;
    if (!notice) throw new Error('no notice sent');
    accepting.record(notice);
    expect(ledger.get(event.id)).toMatchObject({ state: 'dead', reason: 'the instance was deleted', code: 'INSTANCE_DELETED' });
    // A retry under its key is answered with the error it was given up with.
    expect((await ledger.outcome(event.id)).error?.code).toBe('INSTANCE_DELETED');
  });

  test('nothing is sent for its own events, another agent’s, or after the instance moved to another node', () => {
    const { sent, owner } = nodes();
    const own = apiEvent();
    owner.delivered(own, 'alpha:k1', 'nb');
    owner.answered(own.id, answer);
    const fromAgent = makeEvent('agent.request', { kind: 'agent', name: 'beta' }, { input: 'hi' });
    owner.delivered(fromAgent, 'alpha:k1', 'na');
    owner.answered(fromAgent.id, answer);
    const moved = apiEvent();
    owner.delivered(moved, 'alpha:k1', 'na');
    owner.moved('alpha:k1');
    owner.answered(moved.id, answer);
    expect(sent).toEqual([]);
  });

  test('a reply from another node that names its event is recorded and still goes on to its waiter', () => {
    const { ledger, accepting, accept } = nodes();
    const event = apiEvent('corr_3');
    accept(event);
    const reply = makeEvent('agent.response', { kind: 'agent', name: 'alpha' }, { input: 'the answer', metadata: { inReplyTo: 'corr_3', status: 'ok', [SETTLED_EVENT_KEY]: event.id } });
    expect(accepting.record(reply)).toBe(false);
    expect(ledger.get(event.id)?.state).toBe('done');
  });
});
