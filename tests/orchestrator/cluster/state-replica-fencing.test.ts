/**
 * A node's state writes for an instance are fenced: each is a compare-and-set on the revision the
 * node last restored or wrote, so that a node another one took the instance from (cut off, SIGSTOPped
 * past its lease) cannot overwrite the new owner's conversation. Before, a fenced write made the
 * replica forget that revision, and its next write for the instance — the state stored before a
 * tool acts, the hand-over write — was an unconditional put over the new owner's state. The same
 * held for a write of an instance this node never restored or had handed on. And a write begun
 * before the node lost the instance and restored it again, refused late, marked the restored
 * instance fenced: its next write gave the new tenure up. A real `nats-server -js`.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { type KV, Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { ClusterNames } from '../../../orchestrator/cluster/cluster-names.ts';
import { StateFencedError, StateReplica } from '../../../orchestrator/cluster/state-replica.ts';
import { instancePaths } from '../../../shared/state-paths.ts';
import { natsAndTempDir } from '../../helpers/nats-server.ts';

const names = new ClusterNames('fenced-writes');
const silent = pino({ level: 'silent' });
const id = { agent: 'beta', instanceKey: 'k0' };
const PARTITION = 3;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Node {
  replica: StateReplica;
  /** Ends the instance's running turn `n` on this node's disk. */
  turn(n: number): void;
}

async function stateBucket(): Promise<{ kv: KV; stateRoot: string }> {
  const { nats, dir } = await natsAndTempDir(cleanups, 'goondan-fenced-writes-');
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  return { kv: await new Kvm(nc).create(names.stateBucket, { history: 1 }), stateRoot: dir };
}

function node(kv: KV, stateRoot: string): Node {
  const replica = new StateReplica(kv, names, stateRoot, 'ws', silent);
  const paths = instancePaths(stateRoot, 'ws', id.agent, id.instanceKey);
  mkdirSync(paths.messagesDir, { recursive: true });
  return { replica, turn: (n) => writeFileSync(paths.baseMessages, `${JSON.stringify({ turn: n })}\n`) };
}

/** The conversation the bucket holds for the instance (its base.jsonl), and the entry's revision. */
async function stored(kv: KV): Promise<{ base: string | undefined; revision: number }> {
  const entry = await kv.get(names.stateKey(PARTITION, id));
  if (!entry || entry.operation !== 'PUT') throw new Error(`no state snapshot of ${id.agent}/${id.instanceKey} in the bucket`);
  const snapshot = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(entry.value)))) as { files: Record<string, string> };
  return { base: snapshot.files['messages/base.jsonl'], revision: entry.revision };
}

/** The new owner's snapshot: the instance as `turn` left it, written over whatever the key holds. */
async function newOwnerWrites(kv: KV, turn: string): Promise<void> {
  const value = Bun.gzipSync(new TextEncoder().encode(JSON.stringify({ v: 1, files: { 'messages/base.jsonl': turn }, write: 'new-owner' })));
  await kv.put(names.stateKey(PARTITION, id), value);
}

const refusal = (write: Promise<void>): Promise<unknown> => write.then(() => 'written', (error: unknown) => error);

/** The bucket, with every compare-and-set update held until `release` (a write whose answer comes late); `entered` once one is held. */
function heldUpdates(kv: KV): { kv: KV; entered: Promise<void>; release(): void } {
  const entered = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const held = new Proxy(kv, {
    get(target, property, receiver) {
      if (property !== 'update') return Reflect.get(target, property, receiver);
      return async (...args: Parameters<KV['update']>) => {
        entered.resolve();
        await gate.promise;
        return target.update(...args);
      };
    },
  });
  return { kv: held, entered: entered.promise, release: () => gate.resolve() };
}

describe('a node’s state writes for an instance', () => {
  test('after one was fenced, every later one is refused and the new owner’s state stays', async () => {
    const { kv, stateRoot } = await stateBucket();
    const old = node(kv, stateRoot);
    await old.replica.restore(PARTITION, id);
    old.turn(1);
    await old.replica.sync(PARTITION, id);

    // Another node took the instance over and stored its own turn.
    await newOwnerWrites(kv, '{"turn":"new owner"}\n');
    const theirs = await stored(kv);

    old.turn(2);
    expect(await refusal(old.replica.sync(PARTITION, id))).toBeInstanceOf(StateFencedError);
    // The write the fenced node makes next (before a tool acts, at hand-over) is refused too.
    old.turn(3);
    expect(await refusal(old.replica.sync(PARTITION, id))).toBeInstanceOf(StateFencedError);
    expect(await stored(kv)).toEqual(theirs);
    expect(old.replica.holds(id)).toBe(false);
  });

  test('refused for an instance this node did not restore, or gave up', async () => {
    const { kv, stateRoot } = await stateBucket();
    const never = node(kv, stateRoot);
    never.turn(1);
    expect(await refusal(never.replica.sync(PARTITION, id))).toBeInstanceOf(StateFencedError);
    expect(await kv.get(names.stateKey(PARTITION, id))).toBeNull();

    await never.replica.restore(PARTITION, id);
    await never.replica.sync(PARTITION, id);
    const ours = await stored(kv);
    // Its partition moved on: the instance is another node's to write now.
    never.replica.forget(id);
    never.turn(2);
    expect(await refusal(never.replica.sync(PARTITION, id))).toBeInstanceOf(StateFencedError);
    expect(await stored(kv)).toEqual(ours);
  });

  test('restored again, the node writes on from the new owner’s revision', async () => {
    const { kv, stateRoot } = await stateBucket();
    const old = node(kv, stateRoot);
    await old.replica.restore(PARTITION, id);
    old.turn(1);
    await old.replica.sync(PARTITION, id);
    await newOwnerWrites(kv, '{"turn":"new owner"}\n');
    old.turn(2);
    expect(await refusal(old.replica.sync(PARTITION, id))).toBeInstanceOf(StateFencedError);

    // The partition claimed again: the instance's files are the cluster's, then its next turn is stored.
    await old.replica.restore(PARTITION, id);
    expect(old.replica.holds(id)).toBe(true);
    old.turn(3);
    await old.replica.sync(PARTITION, id);
    expect((await stored(kv)).base).toBe('{"turn":3}\n');
  });

  test('one refused late, from before the instance was given up and restored again, does not fence the restored instance', async () => {
    const { kv, stateRoot } = await stateBucket();
    const held = heldUpdates(kv);
    const old = node(held.kv, stateRoot);
    await old.replica.restore(PARTITION, id);
    old.turn(1);
    // The key's first write is a create, not held.
    await old.replica.sync(PARTITION, id);
    old.turn(2);
    const late = refusal(old.replica.sync(PARTITION, id));
    await held.entered;

    // While that write waits for its answer: the partition is lost, another node writes, and the partition comes back.
    old.replica.forget(id);
    await newOwnerWrites(kv, '{"turn":"new owner"}\n');
    await old.replica.restore(PARTITION, id);
    held.release();
    expect(await late).toBeInstanceOf(StateFencedError);

    // The refusal was the earlier tenure's: the instance restored since is still this node's to write.
    expect(old.replica.holds(id)).toBe(true);
    old.turn(3);
    await old.replica.sync(PARTITION, id);
    expect((await stored(kv)).base).toBe('{"turn":3}\n');
  });

  test('one under way when this node deletes the instance stores nothing and is no refusal: the turn the deletion let finish is answered', async () => {
    const { kv, stateRoot } = await stateBucket();
    const held = heldUpdates(kv);
    const here = node(held.kv, stateRoot);
    await here.replica.restore(PARTITION, id);
    here.turn(1);
    await here.replica.sync(PARTITION, id);
    here.turn(2);
    const last = refusal(here.replica.sync(PARTITION, id));
    await held.entered;

    // While the drained turn's write waits for its answer: the tombstone, then this node's part of the delete.
    await here.replica.tombstone(PARTITION, id);
    here.replica.deletedHere(id);
    held.release();
    expect(await last).toBe('written');
    expect(await kv.get(names.stateKey(PARTITION, id))).toMatchObject({ operation: 'DEL' });
  });
});
