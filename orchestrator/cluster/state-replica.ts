/**
 * Moves an instance's state between nodes: the conversation (base + running turn's events), the
 * tool-call journal, async replies kept for it, its metadata and extension state. At each sync
 * point — before a tool handler may act on the world, and before a turn's inbox message is acked —
 * the owner writes a gzipped snapshot of those files to the state bucket with compare-and-set on
 * the revision it last read or wrote, so a node that lost the instance can never overwrite the
 * new owner's state (fencing). A new owner restores the snapshot before the instance starts.
 * The tools' workdir is not moved (see deploy/cluster/README.md).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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

/** Another node wrote the instance's state since we last did: this node no longer owns it. */
export class StateFencedError extends Error {
  override name = 'StateFencedError';
}

interface Shipped {
  /** Revision of the key as we last read or wrote it; null: the key did not exist. */
  revision: number | null;
  digest: bigint | number;
  /** Compare-and-sets since the last answered one whose answers never came (NATS restarted, a timeout): one may have landed. */
  unanswered?: Uint8Array[];
}

export class StateReplica {
  private readonly shipped = new Map<string, Shipped>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly kv: KV,
    private readonly names: ClusterNames,
    private readonly stateRoot: string,
    private readonly workspaceId: string,
    private readonly logger: RootLogger,
  ) {}

  /** Before the instance starts on this node: its files become the cluster's latest snapshot. */
  async restore(partition: number, id: AgentId): Promise<void> {
    const root = instancePaths(this.stateRoot, this.workspaceId, id.agent, id.instanceKey).root;
    const entry = await this.kv.get(this.names.stateKey(partition, id));
    // The local inbox file is a cache of JetStream's inbox, which redelivers what is unfinished.
    rmSync(join(root, 'inbox.jsonl'), { force: true });
    if (!entry || entry.operation !== 'PUT') {
      // Never replicated: whatever is on disk (e.g. a single-node run's state) becomes the first snapshot.
      this.shipped.set(agentKey(id), { revision: entry?.revision ?? null, digest: -1 });
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
    this.shipped.set(agentKey(id), { revision: entry.revision, digest: Bun.hash(JSON.stringify(snapshot.files)) });
    this.logger.info({ agent: id.agent, instanceKey: id.instanceKey, revision: entry.revision, files: Object.keys(snapshot.files).length }, 'restored instance state from the cluster');
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
  }

  /** Once the instance's state writes under way here are done (its last one may follow its process's stop). */
  async idle(id: AgentId): Promise<void> {
    await this.chains.get(agentKey(id))?.catch(() => undefined);
  }

  /** The instance was deleted: its snapshot goes, so that no node restores it. */
  async remove(partition: number, id: AgentId): Promise<void> {
    await this.idle(id);
    await this.kv.delete(this.names.stateKey(partition, id));
    this.forget(id);
  }

  private async ship(partition: number, id: AgentId): Promise<void> {
    const root = instancePaths(this.stateRoot, this.workspaceId, id.agent, id.instanceKey).root;
    const files = readInstanceFiles(root);
    const text = JSON.stringify(files);
    const digest = Bun.hash(text);
    const known = this.shipped.get(agentKey(id));
    if (known && known.digest === digest) return;
    const value = Bun.gzipSync(new TextEncoder().encode(JSON.stringify({ v: 1, files, write: crypto.randomUUID() } satisfies Snapshot)));
    const stateKey = this.names.stateKey(partition, id);
    let revision: number;
    try {
      if (known === undefined) revision = await this.kv.put(stateKey, value);
      else if (known.revision === null) revision = await this.kv.create(stateKey, value);
      else revision = await this.kv.update(stateKey, value, known.revision);
    } catch (error) {
      if (!isWrongRevision(error)) {
        // NATS away or slow: the caller retries. A write that timed out may still have landed.
        if (known !== undefined && isTimeout(error)) this.shipped.set(agentKey(id), { ...known, unanswered: [...(known.unanswered ?? []).slice(1 - MAX_UNANSWERED), value] });
        throw error;
      }
      if (await this.landedUnanswered(stateKey, id, known)) return this.ship(partition, id);
      this.shipped.delete(agentKey(id));
      throw new StateFencedError(`the state of ${agentKey(id)} was written by another node: ${(error as Error).message}`);
    }
    this.shipped.set(agentKey(id), { revision, digest });
  }

  /** Our earlier write whose answer was lost is the stored one: its revision becomes the one to write on. */
  private async landedUnanswered(stateKey: string, id: AgentId, known: Shipped | undefined): Promise<boolean> {
    if (!known?.unanswered) return false;
    const entry = await this.kv.get(stateKey).catch(() => null);
    if (!entry || entry.operation !== 'PUT' || !known.unanswered.some((value) => sameBytes(entry.value, value))) return false;
    this.shipped.set(agentKey(id), { revision: entry.revision, digest: -1 });
    this.logger.info({ agent: id.agent, instanceKey: id.instanceKey, revision: entry.revision }, 'a state write whose answer was lost had landed; writing on from it');
    return true;
  }
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
