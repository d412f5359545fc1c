/** Cluster e2e: waiting until the partitions are spread over the live nodes as rendezvous hashing says. */
import { rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { type Daemon, waitFor } from './daemon-harness.ts';

/** The partition count the e2e nodes run with (the default). */
export const PARTITIONS = 32;

export async function partitionsOwned(node: Daemon): Promise<number> {
  const text = await (await node.api('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith('goondan_cluster_partitions_owned{'));
  return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
}

export async function spreadOver(nodes: Array<[string, Daemon]>): Promise<void> {
  const ids = nodes.map(([id]) => id);
  const share = (id: string) => Array.from({ length: PARTITIONS }, (_, p) => rendezvousOwner(p, ids)).filter((owner) => owner === id).length;
  await waitFor(
    `the partitions spread over ${ids.join(', ')}`,
    () => Promise.all(nodes.map(([, node]) => partitionsOwned(node))),
    (owned) => owned.every((n, i) => n === share(ids[i] ?? '')),
  );
}
