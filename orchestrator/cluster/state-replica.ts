/**
 * Moves an instance's state between nodes: the conversation (base + running turn's events), the
 * tool-call journal, async replies kept for it, its metadata and extension state. At each sync
 * point — before a tool handler may act on the world, and before a turn's inbox message is acked —
 * the owner writes a gzipped snapshot of those files to the state bucket with compare-and-set on
 * the revision it last read or wrote, so a node that lost the instance can never overwrite the
 * new owner's state (fencing). A new owner restores the snapshot before the instance starts.
 * The tools' workdir is not moved (see deploy/cluster/README.md).
 *
 * Every write is conditional or refused, never a plain put: once one was fenced, the node keeps
 * refusing the instance's writes (the state before a tool acts, the hand-over write) until it
 * restores the instance again; and an instance this node did not restore, or gave up, is not its
 * to write. (Before, a fenced write dropped the revision, and the next write went out as a plain
 * put over the new owner's conversation.)
 *
 * A deleted instance leaves its key's delete marker in the bucket (written first by
 * instance-deletion.ts): the tombstone. Its revision is newer than every copy of the deleted
 * conversation, so a node that restores over it removes the copy it has (before, a tombstone read
 * like "never replicated" and the node's own files came back, e.g. a node that was down during the
 * delete), and a write based on an older revision is refused by it (a takeover that restored the
 * old snapshot cannot store it again). A new conversation under the same key writes on from the
 * tombstone's revision, so the marker never blocks it.
 *
 * Each restore (and each deletion here) starts a new generation of the instance on this node, and a
 * write answers only for the generation it began in: one from before the instance was given up and
 * restored again, answered late, changes nothing of the new one. (Before, its late refusal marked
 * the freshly restored instance fenced, and its next write gave the new tenure of the partition up.)
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { KV } from '@nats-io/kv';
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { ClusterNames } from './cluster-names.ts';
import { localStateFiles, readInstanceFiles } from './instance-files.ts';
import { isWrongRevision } from './kv-json.ts';

interface Snapshot {
  v: 1;
  files: Record<string, string>;
  /** Unique per write: a write whose answer was lost is recognised by it (equal bytes are ours). */
  write?: string;
}

const isSnapshot = compiledValidator<Snapshot>({
  schema: { type: 'object', required: ['v', 'files'], properties: { v: { const: 1 }, files: { type: 'object', additionalProperties: { type: 'string' } } } },
});

/** Timed-out writes remembered per instance (each took a request timeout: 16 cover over a minute). */
const MAX_UNANSWERED = 16;

/** This node may not write the instance's state: another node wrote it since we last did (fenced), or this node does not hold it. */
export class StateFencedError extends Error {
  override name = 'StateFencedError';
}

interface Shipped {
  /** Revision of the key as we last read or wrote it; null: the key did not exist. */
  revision: number | null;
  digest: bigint | number;
  /** Compare-and-sets since the last answered one whose answers never came (NATS restarted, a timeout): one may have landed. */
  unanswered?: Uint8Array[];
  /** The cluster deleted the instance after this node's copy: nothing of it is stored again until it is restored afresh. */
  gone?: boolean;
  /** Another node wrote the instance after `revision`: this node's writes are refused until it restores the instance again. */
  fenced?: boolean;
  /** Which restore (or deletion here) of the instance on this node this record belongs to. */
  generation: number;
}

/**
 * A write begun before the instance was given up (and maybe restored again) here was refused: it
 * says nothing of the instance as this node holds it now. A StateFencedError all the same — its
 * turn's state was not stored — but never a reason to give the partition up (partition-owner.ts).
 */
export class SupersededWriteError extends StateFencedError {
  override name = 'SupersededWriteError';
}

/** What the node does when an instance's state arrives or leaves (cluster-node.ts: its pending approvals follow it). */
export interface ReplicaListener {
  /** The instance's files are the cluster's now (restored, or removed for a tombstone), before it starts here. */
  restored?(id: AgentId): void;
  /** The instance left this node (handed over, lost, deleted, or swept for a tombstone). */
  left?(id: AgentId): void;
  /** A state write here found the instance deleted in the cluster since this node's copy. */
  deletedElsewhere?(id: AgentId): void;
}

export class StateReplica {
  private readonly shipped = new Map<string, Shipped>();
  private readonly chains = new Map<string, Promise<void>>();
  /** The last generation handed out (restores and deletions here, every instance). */
  private generation = 0;
  private listener: ReplicaListener | undefined;

  constructor(
    private readonly kv: KV,
    private readonly names: ClusterNames,
    private readonly stateRoot: string,
    private readonly workspaceId: string,
    private readonly logger: RootLogger,
  ) {}

  listen(listener: ReplicaListener): void {
    this.listener = listener;
  }

  /** Before the instance starts on this node: its files become the cluster's latest snapshot. */
  async restore(partition: number, id: AgentId): Promise<void> {
    const root = instancePaths(this.stateRoot, this.workspaceId, id.agent, id.instanceKey).root;
    const entry = await this.kv.get(this.names.stateKey(partition, id));
    // The local inbox file is a cache of JetStream's inbox, which redelivers what is unfinished.
    rmSync(join(root, 'inbox.jsonl'), { force: true });
    if (!entry) {
      // Never replicated: whatever is on disk (e.g. a single-node run's state) becomes the first snapshot.
      this.shipped.set(agentKey(id), { revision: null, digest: -1, generation: ++this.generation });
      this.listener?.restored?.(id);
      return;
    }
    if (entry.operation !== 'PUT') {
      // The tombstone of a deletion, newer than any copy here: that copy is of the deleted
      // conversation (or of a start never stored), not to come back. The next write goes on from it.
      const had = existsSync(root);
      rmSync(root, { recursive: true, force: true });
      this.shipped.set(agentKey(id), { revision: entry.revision, digest: -1, generation: ++this.generation });
      if (had) this.logger.info({ agent: id.agent, instanceKey: id.instanceKey, revision: entry.revision }, 'the cluster deleted this instance: removed the copy held here; it starts afresh');
      this.listener?.restored?.(id);
      return;
    }
    const snapshot = decode(entry.value);
    if (!snapshot) throw new Error(`the state snapshot of ${agentKey(id)} (revision ${entry.revision}) is not readable`);
    for (const path of localStateFiles(root)) if (!(path in snapshot.files)) rmSync(join(root, path), { force: true });
    for (const [path, text] of Object.entries(snapshot.files)) {
      const target = join(root, path);
      if (relative(root, target).startsWith('..')) continue; // a snapshot never names files outside its instance
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
    }
    this.shipped.set(agentKey(id), { revision: entry.revision, digest: Bun.hash(JSON.stringify(snapshot.files)), generation: ++this.generation });
    this.logger.info({ agent: id.agent, instanceKey: id.instanceKey, revision: entry.revision, files: Object.keys(snapshot.files).length }, 'restored instance state from the cluster');
    this.listener?.restored?.(id);
  }

  /** Replicates the instance's files as they are now; syncs of one instance run in order. */
  sync(partition: number, id: AgentId): Promise<void> {
    const key = agentKey(id);
    const next = (this.chains.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => this.ship(partition, id));
    this.chains.set(key, next);
    void next.finally(() => this.chains.get(key) === next && this.chains.delete(key)).catch(() => undefined);
    return next;
  }

  /** The instance left this node: the next restore reads the bucket again. */
  forget(id: AgentId): void {
    this.shipped.delete(agentKey(id));
    this.listener?.left?.(id);
  }

  /** Whether this node restored the instance and may store its state (not deleted meanwhile). */
  holds(id: AgentId): boolean {
    const known = this.shipped.get(agentKey(id));
    return known !== undefined && known.gone !== true && known.fenced !== true;
  }

  /** Once the instance's state writes under way here are done (its last one may follow its process's stop). */
  async idle(id: AgentId): Promise<void> {
    await this.chains.get(agentKey(id))?.catch(() => undefined);
  }

  /**
   * The instance is deleted: its key's snapshot gives way to the tombstone, at once — before any
   * node is asked, so that no takeover meanwhile restores the conversation or stores it again.
   */
  async tombstone(partition: number, id: AgentId): Promise<void> {
    await this.kv.delete(this.names.stateKey(partition, id));
  }

  /** This node deleted its copy: a late write of the old process stores nothing (the next restore starts afresh). */
  deletedHere(id: AgentId): void {
    this.shipped.set(agentKey(id), { revision: null, digest: -1, gone: true, generation: ++this.generation });
  }

  /**
   * Copies here of instances the cluster deleted (a node that was down or cut off during the
   * delete): removed, so that they are neither listed nor shown. An instance this node runs is
   * left alone (its own writes meet the tombstone). Returns the ones removed.
   */
  async sweep(partitionOf: (id: AgentId) => number, local: readonly AgentId[]): Promise<AgentId[]> {
    const removed: AgentId[] = [];
    for (const id of local) {
      if (this.shipped.has(agentKey(id))) continue;
      const entry = await this.kv.get(this.names.stateKey(partitionOf(id), id));
      // Checked again after the read: a restore may have begun meanwhile.
      if (!entry || entry.operation === 'PUT' || this.shipped.has(agentKey(id))) continue;
      rmSync(instancePaths(this.stateRoot, this.workspaceId, id.agent, id.instanceKey).root, { recursive: true, force: true });
      this.listener?.left?.(id);
      removed.push(id);
    }
    if (removed.length > 0) this.logger.info({ instances: removed.map((id) => agentKey(id)) }, 'removed copies of instances the cluster deleted while this node was away');
    return removed;
  }

  private async ship(partition: number, id: AgentId): Promise<void> {
    const root = instancePaths(this.stateRoot, this.workspaceId, id.agent, id.instanceKey).root;
    const files = readInstanceFiles(root);
    const text = JSON.stringify(files);
    const digest = Bun.hash(text);
    const known = this.shipped.get(agentKey(id));
    if (known?.gone) return;
    if (known === undefined) {
      throw new StateFencedError(`the state of ${agentKey(id)} is not this node's to write: the instance was not restored here, or its partition left this node (its owner writes it)`);
    }
    // Checked before the digest: an unchanged copy of a fenced instance is not "stored" either.
    if (known.fenced) throw new StateFencedError(`the state of ${agentKey(id)} was written by another node after revision ${known.revision}: this node no longer writes it until it restores the instance again`);
    if (known.digest === digest) return;
    const value = Bun.gzipSync(new TextEncoder().encode(JSON.stringify({ v: 1, files, write: crypto.randomUUID() } satisfies Snapshot)));
    const stateKey = this.names.stateKey(partition, id);
    let revision: number;
    try {
      // Only while the key has never been written: `create` would also write over a tombstone.
      if (known.revision === null) revision = await this.kv.put(stateKey, value, { previousSeq: 0 });
      else revision = await this.kv.update(stateKey, value, known.revision);
    } catch (error) {
      // Deleted here while it was under way (the turn a deletion lets finish): that turn is done and
      // its answer stands; its state is not stored, as the deletion meant. No refusal to report.
      if (this.deletedHereSince(id, known)) return;
      if (!this.isCurrent(id, known)) throw superseded(id, error);
      if (!isWrongRevision(error)) {
        // NATS away or slow: the caller retries. A write that timed out may still have landed.
        if (isTimeout(error)) this.shipped.set(agentKey(id), { ...known, unanswered: [...(known.unanswered ?? []).slice(1 - MAX_UNANSWERED), value] });
        throw error;
      }
      if (await this.landedUnanswered(stateKey, id, known)) return this.ship(partition, id);
      // Given up or restored again during those reads: the refusal is not the current generation's.
      if (!this.isCurrent(id, known)) throw superseded(id, error);
      if (await this.deletedSince(stateKey, known)) {
        if (!this.isCurrent(id, known)) throw superseded(id, error);
        // Deleted while it ran here (e.g. the turn a deletion lets finish): the turn is done, its
        // state is not stored again; the node removes its copy (cluster-node.ts).
        this.shipped.set(agentKey(id), { revision: known.revision, digest, gone: true, generation: known.generation });
        this.logger.info({ agent: id.agent, instanceKey: id.instanceKey }, 'the cluster deleted this instance while it ran here: its state is not stored again');
        this.listener?.deletedElsewhere?.(id);
        return;
      }
      // Kept, not forgotten: a write without a revision to compare would be a plain put over the new owner's state.
      this.shipped.set(agentKey(id), { revision: known.revision, digest: known.digest, fenced: true, generation: known.generation });
      throw new StateFencedError(`the state of ${agentKey(id)} was written by another node after revision ${known.revision}: ${(error as Error).message}`);
    }
    // Landed, but the instance was restored again meanwhile: the new generation writes on from what it read.
    if (!this.isCurrent(id, known)) {
      this.logger.warn({ agent: id.agent, instanceKey: id.instanceKey, revision }, 'a state write from before the instance was restored again landed late');
      return;
    }
    this.shipped.set(agentKey(id), { revision, digest, generation: known.generation });
  }

  /** This node deleted the instance after the write began, and has not restored it since. */
  private deletedHereSince(id: AgentId, known: Shipped): boolean {
    const now = this.shipped.get(agentKey(id));
    return now?.gone === true && now.generation !== known.generation;
  }

  /** The instance is still held here as it was when the write began (not given up, restored or deleted since). */
  private isCurrent(id: AgentId, known: Shipped): boolean {
    return this.shipped.get(agentKey(id))?.generation === known.generation;
  }

  /** The key's latest entry is a tombstone written after the revision this node's copy is of. */
  private async deletedSince(stateKey: string, known: Shipped | undefined): Promise<boolean> {
    const entry = await this.kv.get(stateKey);
    return entry !== null && entry.operation !== 'PUT' && entry.revision > (known?.revision ?? 0);
  }

  /** Our earlier write whose answer was lost is the stored one: its revision becomes the one to write on. */
  private async landedUnanswered(stateKey: string, id: AgentId, known: Shipped): Promise<boolean> {
    if (!known.unanswered) return false;
    const entry = await this.kv.get(stateKey).catch(() => null);
    if (!entry || entry.operation !== 'PUT' || !known.unanswered.some((value) => sameBytes(entry.value, value))) return false;
    if (!this.isCurrent(id, known)) return false;
    this.shipped.set(agentKey(id), { revision: entry.revision, digest: -1, generation: known.generation });
    this.logger.info({ agent: id.agent, instanceKey: id.instanceKey, revision: entry.revision }, 'a state write whose answer was lost had landed; writing on from it');
    return true;
  }
}

function superseded(id: AgentId, error: unknown): SupersededWriteError {
  const why = error instanceof Error ? error.message : String(error);
  return new SupersededWriteError(`a state write of ${agentKey(id)} begun before this node gave the instance up (or restored it again) was not stored (${why}); the instance as restored since is unaffected`);
}

/** The request reached no answer in time: unlike a refusal or no responders, it may have been carried out. */
function isTimeout(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'TimeoutError' || (error.cause instanceof Error && error.cause.name === 'TimeoutError');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function decode(value: Uint8Array): Snapshot | undefined {
  try {
    const snapshot: unknown = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(value))));
    return isSnapshot(snapshot) ? snapshot : undefined;
  } catch {
    return undefined;
  }
}
