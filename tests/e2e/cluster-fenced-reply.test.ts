/**
 * Cluster mode, with a real `nats-server -js`: a turn whose state write is fenced — another node
 * wrote the instance's state since this node last did, as a node that took the partition over
 * after this one was cut off (SIGSTOP) does — must not answer its caller. The event runs again on
 * the partition's owner, and the caller gets that answer, the one stored. Before, the reply left
 * when the turn ended, before its state write, and a fenced write did not withdraw it: the caller
 * got an answer the cluster then replaced with another.
 *
 * The other node's write is made by the test itself (the snapshot written again as it is: a new
 * revision), at the moment the callee's tool is held: the same fencing, without racing a
 * stopped node's wake-up against its lease renewal.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { ClusterNames } from '../../orchestrator/cluster/cluster-names.ts';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { type NatsServer, startNatsServer } from '../helpers/nats-server.ts';
import { auditCluster, counterExecutions } from './cluster-audit.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster-resume');
const WORKSPACE = 'cluster-resume';
const LEASE_SECONDS = '3';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startNode(nats: NatsServer, dir: string, nodeId: string): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: join(dir, 'counter.jsonl'), GOONDAN_TEST_GATE_DIR: join(dir, 'gates') },
    args: ['--cluster', nats.url, '--node-id', nodeId, '--cluster-lease-seconds', LEASE_SECONDS],
  });
  cleanups.push(() => daemon.cleanup());
  return daemon;
}

/** Writes the instance's state snapshot again, unchanged: a new revision, as another node's write makes. */
async function writeStateElsewhere(url: string, agent: string, instanceKey: string): Promise<number> {
  const names = new ClusterNames(WORKSPACE);
  const nc = await connect({ servers: url });
  try {
    const kv = await new Kvm(nc).open(names.stateBucket);
    const key = names.stateKey(partitionOf({ agent, instanceKey }, PARTITIONS), { agent, instanceKey });
    const entry = await kv.get(key);
    if (!entry || entry.operation !== 'PUT') throw new Error(`no state snapshot of ${agent}/${instanceKey} under ${key}`);
    return await kv.put(key, entry.value);
  } finally {
    await nc.close();
  }
}

describe('cluster: a turn whose state write is fenced', () => {
  test('does not answer its caller; the caller gets the answer of the event’s run that is stored', async () => {
    const nats = await startNatsServer();
    cleanups.push(() => nats.stop());
    const dir = mkdtempSync(join(tmpdir(), 'goondan-cluster-fenced-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'gates'));
    const counterFile = join(dir, 'counter.jsonl');
    const [na, nb] = [await startNode(nats, dir, 'na'), await startNode(nats, dir, 'nb')];
    await spreadOver([['na', na], ['nb', nb]]);
    // beta runs on nb; its caller waits on na.
    const key = Array.from({ length: 200 }, (_, i) => `f${i}`).find((k) => rendezvousOwner(partitionOf({ agent: 'beta', instanceKey: k }, PARTITIONS), ['na', 'nb']) === 'nb');
    if (key === undefined) throw new Error('no beta instance key owned by nb among 200');

    const asked = na.send({ agent: 'beta', input: `hold ${key}`, instanceKey: key, timeoutMs: 60_000 });
    // The tool runs: its state (with the call started) was written by nb just before.
    await waitFor('beta’s tool running on nb', () => counterExecutions(counterFile).get(key) ?? 0, (n) => n === 1);
    await writeStateElsewhere(nats.url, 'beta', key);
    writeFileSync(join(dir, 'gates', key), '');

    // nb's turn ends "beta did <key>"; its state write is refused; the event runs again on nb's
    // fresh claim, from the stored state, where the non-idempotent call is reported interrupted.
    const answer = await asked;
    expect(answer.status).toBe(200);
    const stored = await waitFor(
      'the event’s turn stored in the cluster',
      async () => [...(await auditCluster(nats.url, WORKSPACE)).histories.values()].flat().filter((line) => line.startsWith('assistant: beta did')),
      (answers) => answers.length === 1,
    );
    expect(stored).toEqual([`assistant: ${String(answer.body.output)}`]);
    expect(answer.body.output).not.toBe(`beta did ${key}`);
    await nb.waitForLog('nb’s state write fenced', (line) => line.msg === 'another node wrote this instance state: giving up the partition');
    expect(nb.logs.some((line) => String(line.msg).startsWith('withheld a reply whose turn could not be stored in the cluster'))).toBe(true);
  }, 240_000);
});
