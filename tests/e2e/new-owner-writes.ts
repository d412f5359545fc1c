/**
 * Cluster e2e: the write another node makes when it takes an instance over — its state snapshot
 * stored again (a new revision) — made by the test itself, at the moment a turn is held. The node
 * running the instance is fenced by it exactly as by a takeover, without racing a stopped node's
 * wake-up against its lease renewal.
 */
import { type KV, type KvEntry, Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { ClusterNames } from '../../orchestrator/cluster/cluster-names.ts';
import { partitionOf } from '../../orchestrator/cluster/partitions.ts';
import { PARTITIONS } from './cluster-spread.ts';

interface Snapshot {
  v: 1;
  files: Record<string, string>;
}

export interface Instance {
  workspaceId: string;
  agent: string;
  instanceKey: string;
}

/** Stores the instance's snapshot again, with `extraFiles` (files only the new owner has) added. */
export async function writeAsNewOwner(url: string, instance: Instance, extraFiles: Record<string, string> = {}): Promise<void> {
  await withStateKey(url, instance, async (kv, key) => {
    const snapshot = decode(await kv.get(key), key);
    const theirs = { v: 1, files: { ...snapshot.files, ...extraFiles }, write: 'new-owner' };
    await kv.put(key, Bun.gzipSync(new TextEncoder().encode(JSON.stringify(theirs))));
  });
}

/** The files of the instance's stored snapshot. */
export function storedFiles(url: string, instance: Instance): Promise<Record<string, string>> {
  return withStateKey(url, instance, async (kv, key) => decode(await kv.get(key), key).files);
}

function decode(entry: KvEntry | null, key: string): Snapshot {
  if (!entry || entry.operation !== 'PUT') throw new Error(`no state snapshot under ${key}`);
  return JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(entry.value)))) as Snapshot;
}

async function withStateKey<T>(url: string, { workspaceId, agent, instanceKey }: Instance, use: (kv: KV, key: string) => Promise<T>): Promise<T> {
  const names = new ClusterNames(workspaceId);
  const nc = await connect({ servers: url });
  try {
    const kv = await new Kvm(nc).open(names.stateBucket);
    return await use(kv, names.stateKey(partitionOf({ agent, instanceKey }, PARTITIONS), { agent, instanceKey }));
  } finally {
    await nc.close();
  }
}
