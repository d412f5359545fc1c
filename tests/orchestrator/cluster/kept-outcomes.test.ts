/**
 * Outcomes kept for the node that accepted their events (kept-outcomes.ts, outcome-delivery.ts):
 * an outcome the accepting node did not take at the first attempt is kept for its disk until it
 * takes it — at its next start, under any id — or until a later attempt gets through; what is kept
 * for a disk no member record names any more (an operator's `nats kv del` of a retired node) goes.
 * The owner's ack of such an event waits until its outcome is handed off: through, or kept.
 * A real `nats-server -js`.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { KeptOutcomes } from '../../../orchestrator/cluster/kept-outcomes.ts';
import { KvObserver } from '../../../orchestrator/cluster/kv-observer.ts';
import { Membership } from '../../../orchestrator/cluster/membership.ts';
import { OutcomeDelivery } from '../../../orchestrator/cluster/outcome-delivery.ts';
import { DeletedEventNotices } from '../../../orchestrator/cluster/deleted-event-notices.ts';
import { EventLedger } from '../../../orchestrator/delivery/event-ledger.ts';
import { ForeignOutcomes, SETTLED_EVENT_KEY } from '../../../orchestrator/routing/foreign-outcomes.ts';
import { FsyncPolicy } from '../../../shared/durability/fsync-policy.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';
import { waitFor } from '../../helpers/wait-for.ts';

const names = new ClusterNames('kept-outcomes');
const logger = pino({ level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'goondan-kept-outcomes-'));
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const notice = (eventId: string): AgentEvent => ({
  id: `evt-notice-${eventId}`,
  type: 'agent.reply',
  createdAt: new Date().toISOString(),
  input: 'the answer',
  source: { kind: 'agent', name: 'orchestrator' },
  metadata: { inReplyTo: '__notice', status: 'ok', [SETTLED_EVENT_KEY]: eventId },
});

async function setUp() {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  const kv = await new Kvm(nc).create(names.membersBucket, { history: 1 });
  const kept = new KeptOutcomes({ names, js: jetstream(nc), jsm: await jetstreamManager(nc), logger });
  await kept.ensureStream();
  const node = async (id: string, disk: string, send: (node: string, event: AgentEvent, until: number, missed: () => void) => Promise<boolean> = () => Promise.resolve(true)) => {
    const view = await KvObserver.start(kv, logger);
    cleanups.push(() => view.stop());
    const membership = new Membership(kv, view, id, 60_000, () => `http://${id}`, disk);
    const taken: string[] = [];
    const delivery = new OutcomeDelivery({ kept, membership, disk, logger, send, take: (outcome) => taken.push(String(outcome.metadata?.[SETTLED_EVENT_KEY])) });
    return { membership, delivery, taken, view };
  };
  const count = async () => (await (await jetstreamManager(nc)).streams.info(names.outcomesStream)).state.messages;
  /** `id` on `disk` stopped gracefully (departed), and the owner nb, whose sends never get through, once it sees that. */
  const departedAndOwner = async (id: string, disk: string) => {
    const departing = await node(id, disk);
    await departing.membership.heartbeat();
    departing.membership.draining = true;
    await departing.membership.leave();
    const owner = await node('nb', 'disk-b', away);
    await owner.membership.heartbeat();
    await waitFor(`nb to see ${id} departed`, async () => owner.membership.departed(), (departed) => departed.includes(id));
    return owner;
  };
  return { nats, kv, kept, node, count, departedAndOwner };
}

/** A node that never gets through: each send misses at once, then gives up. */
const away = async (_node: string, _event: AgentEvent, _until: number, missed: () => void) => {
  missed();
  return false;
};

describe('outcomes kept for the node that accepted their events', () => {
  test('are kept while that node does not take them, taken by the node back on its disk under another id, and released when a later attempt gets through', async () => {
    const { node, count, departedAndOwner } = await setUp();
    const owner = await departedAndOwner('na', 'disk-a');
    owner.delivery.noteOrigin('na');
    await owner.delivery.send('na', notice('evt-1'), Date.now());
    await owner.delivery.send('na', notice('evt-2'), Date.now());
    // A reply that settles no event of na's is never kept.
    await owner.delivery.send('na', { ...notice('x'), metadata: { inReplyTo: 'corr-1', status: 'ok' } }, Date.now());
    expect(await count()).toBe(2);

    // Back on disk-a as na2: it takes both, in order, and nothing is kept any more.
    const back = await node('na2', 'disk-a');
    await back.membership.heartbeat();
    await back.delivery.collect();
    expect(back.taken).toEqual(['evt-1', 'evt-2']);
    expect(await count()).toBe(0);

    // Missed once, then through: released by the sender.
    let attempts = 0;
    const flaky = await node('nc', 'disk-c', async (_node, _event, _until, missed) => {
      attempts += 1;
      missed();
      return true;
    });
    await flaky.membership.heartbeat();
    await waitFor('nc to see na2', async () => flaky.membership.diskOf('na2'), (disk) => disk === 'disk-a');
    await flaky.delivery.send('na2', notice('evt-3'), Date.now());
    expect({ attempts, kept: await count() }).toEqual({ attempts: 1, kept: 0 });
  }, 60_000);

  test('are dropped once no member record names their node’s disk (a retired node forgotten with `nats kv del`), and never kept for a node that is no member', async () => {
    const { kv, count, departedAndOwner } = await setUp();
    const owner = await departedAndOwner('nr', 'disk-r');
    await owner.delivery.sweep();
    await owner.delivery.send('nr', notice('evt-r'), Date.now());
    expect(await count()).toBe(1);
    await owner.delivery.sweep();
    expect(await count()).toBe(1);

    await kv.delete('nr');
    await waitFor('nb to see nr forgotten', async () => owner.membership.known(), (known) => !known.includes('nr'));
    await owner.delivery.sweep();
    expect(await count()).toBe(0);
    await owner.delivery.send('nr', notice('evt-r2'), Date.now());
    expect(await count()).toBe(0);
  }, 60_000);

  test('an event given up for its instance’s deletion is kept too, and recorded dead (INSTANCE_DELETED) by its node once back', async () => {
    const { nats, kept, count, departedAndOwner } = await setUp();
    const owner = await departedAndOwner('na', 'disk-a');
    // The owner's own connection: closed once the notice is kept, which ends its sending (as at a stop).
    const ownerNc = await connect({ servers: nats.url });
    const notices = new DeletedEventNotices({ nc: ownerNc, nodeId: 'nb', subjectOf: (n) => names.nodeDeletedEvents(n), logger, core: () => undefined, deliver: (...args) => owner.delivery.deliver(...args) });
    const told = notices.tell('na', { eventId: 'evt-del', reason: 'the instance was deleted' });
    await waitFor('the notice kept for na', count, (kept) => kept === 1);
    await ownerNc.close();
    await told;

    const ledger = new EventLedger(join(dir, 'events.jsonl'), new FsyncPolicy('never'));
    ledger.accepted({ eventId: 'evt-del', agent: 'alpha', instanceKey: 'k1', traceId: 'a'.repeat(32) });
    const records = new ForeignOutcomes({ nodeId: 'na2', send: () => {}, ledger });
    // What na2, back on disk-a, does at its start (outcome-delivery.ts collect()).
    expect(await kept.collect('disk-a', (outcome) => records.record(outcome))).toBe(1);
    expect(ledger.get('evt-del')).toMatchObject({ state: 'dead', reason: 'the instance was deleted', code: 'INSTANCE_DELETED' });
    expect(await count()).toBe(0);
  }, 60_000);

  test('an event accepted from outside by another node is handed off (its ack may go) once its outcome got through or is kept, not before; any other event at once', async () => {
    const { node, count } = await setUp();
    const accepting = await node('na', 'disk-a');
    await accepting.membership.heartbeat();
    let attempt: (missed: () => void) => Promise<boolean> = async () => true;
    const owner = await node('nb', 'disk-b', (_node, _event, _until, missed) => attempt(missed));
    await waitFor('nb to see na', async () => owner.membership.diskOf('na'), (disk) => disk === 'disk-a');
    const handedOff = (eventId: string) => {
      const state = { done: false };
      void owner.delivery.handedOff(eventId).then(() => (state.done = true));
      return state;
    };
    const ticks = () => Bun.sleep(20);

    // Not expected (accepted here, or an agent's request): nothing to wait for.
    const other = handedOff('evt-other');
    await ticks();
    expect(other.done).toBe(true);

    // Through at the first attempt: handed off then, not while the attempt waits for its receipt.
    let through: (ok: boolean) => void = () => {};
    attempt = () => new Promise((resolve) => (through = resolve));
    owner.delivery.expect('evt-h1');
    const first = handedOff('evt-h1');
    const sent = owner.delivery.send('na', notice('evt-h1'), Date.now() + 60_000);
    await ticks();
    expect(first.done).toBe(false);
    through(true);
    await sent;
    await ticks();
    expect(first.done).toBe(true);

    // The first attempt missed, and later ones never get through: handed off once the outcome is kept.
    let giveUp: (ok: boolean) => void = () => {};
    attempt = (missed) => {
      missed();
      return new Promise((resolve) => (giveUp = resolve));
    };
    owner.delivery.expect('evt-h2');
    const second = handedOff('evt-h2');
    const kept = owner.delivery.send('na', notice('evt-h2'), Date.now() + 60_000);
    await waitFor('evt-h2 handed off', async () => second.done, (done) => done);
    expect(await count()).toBe(1);
    giveUp(false);
    await kept;
  }, 60_000);
});
