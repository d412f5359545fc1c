/**
 * Issue 15, "Tests and proof": one swarm on three nodes sharing a real `nats-server -js`. Work is
 * sent to random nodes while one node is killed with SIGKILL and another is stopped with SIGTERM;
 * afterwards the cluster's own records (the state snapshots in JetStream KV, the inbox consumers)
 * show every accepted event in exactly one history once, the shared counter shows no tool call
 * ran twice, and an A→B→A request across nodes answered under one traceId. A NATS restart in the
 * middle of traffic loses nothing accepted.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { type ClusterHarness, clusterHarnesses } from './cluster-harness.ts';
import { auditCluster, type ClusterAudit, counterExecutions } from './cluster-audit.ts';
import { type Daemon, GOONDAN_BIN, readRuntimeEvents, startDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster');
const WORKSPACE = 'cluster';
const PARTITIONS = 32;
const LEASE_SECONDS = '3';
/**
 * The NATS-restart test is about an outage shorter than the lease (nothing is taken over). A
 * restart on a loaded 2-core machine took longer than 3 s, the nodes then gave their partitions up
 * mid-turn and a non-idempotent tool call was rightly reported interrupted: that is the kill test's
 * subject, not this one's.
 */
const RESTART_LEASE_SECONDS = '15';

const { cleanups, harness } = clusterHarnesses('goondan-cluster-');
type Harness = ClusterHarness;

async function startNode(h: Harness, nodeId: string, leaseSeconds = LEASE_SECONDS): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: h.counterFile },
    args: ['--cluster', h.nats.url, '--node-id', nodeId, '--cluster-lease-seconds', leaseSeconds],
  });
  cleanups.push(() => daemon.cleanup());
  return daemon;
}

async function metric(daemon: Daemon, name: string): Promise<number> {
  const text = await (await daemon.api('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
}

/** Each node owns exactly its rendezvous share: the start-up hand-overs are over. */
async function partitionsSpread(nodes: Daemon[], ids: string[]): Promise<number[]> {
  const share = ids.map((id) => Array.from({ length: PARTITIONS }, (_, p) => rendezvousOwner(p, ids)).filter((owner) => owner === id).length);
  return waitFor(
    `the ${PARTITIONS} partitions owned as rendezvous hashing assigns them over ${ids.join(', ')} (${share.join('/')})`,
    () => Promise.all(nodes.map((node) => metric(node, 'goondan_cluster_partitions_owned'))),
    (owned) => owned.every((n, i) => n === share[i]),
  );
}

/** POST without waiting for the turn; the event id when the node accepted it (202). */
async function sendCount(node: Daemon, label: string, instanceKey: string): Promise<string | undefined> {
  try {
    const { status, body } = await node.send({ input: `count ${label}`, instanceKey, wait: false });
    return status === 202 && typeof body.eventId === 'string' ? body.eventId : undefined;
  } catch {
    return undefined; // the node went away under this request: not accepted
  }
}

/** Waits until JetStream's records show every accepted event folded into a history, and returns the audit. */
async function settled(h: Harness, accepted: Map<string, string>, nodes: Daemon[]) {
  let last: ClusterAudit | undefined;
  try {
    return await waitFor(
      `all ${accepted.size} accepted events in the replicated histories and nothing left for the partition consumers`,
      async () => (last = await auditCluster(h.nats.url, WORKSPACE)),
      (audit) => audit.backlog === 0 && [...accepted.keys()].every((eventId) => (audit.inputs.get(eventId) ?? 0) >= 1),
      240_000,
    );
  } catch (error) {
    const missing = [...accepted].filter(([eventId]) => !last?.inputs.has(eventId)).map(([, label]) => label);
    const warnings = nodes.flatMap((node) => node.logs.filter((line) => ['warn', 'error', 'fatal'].includes(String(line.level))).slice(-12).map((line) => JSON.stringify(line).slice(0, 300)));
    throw new Error(`${(error as Error).message}\ninbox backlog: ${last?.backlog} (${last?.stuckPartitions.join('; ')}); missing from every history: ${missing.join(', ')}\nnode warnings:\n${warnings.join('\n')}`);
  }
}

/** The messages from an input on, in whichever history holds it (for a failure message). */
function historyAround(histories: Map<string, string[]>, input: string): string {
  for (const [key, history] of histories) {
    const at = history.indexOf(`user: ${input}`);
    if (at >= 0) return `${key}: ${history.slice(at, at + 6).join(' | ')}`;
  }
  return `${input}: in no history`;
}

describe('a swarm on three nodes over NATS JetStream', () => {
  test(
    'every accepted event gets exactly one turn and no tool side effect twice while nodes are killed and drained; A→B→A crosses nodes under one traceId',
    async () => {
      const h = await harness();
      const ids = ['n1', 'n2', 'n3'];
      const nodes = await Promise.all(ids.map((id) => startNode(h, id)));
      const [n1, n2, n3] = nodes as [Daemon, Daemon, Daemon];
      await partitionsSpread(nodes, ids);

      // A→B→A: alpha asks beta; some key puts them on different nodes.
      const asked = await Promise.all(
        Array.from({ length: 9 }, (_, i) => nodes[i % 3]?.send({ input: `ask q${i}`, instanceKey: `q${i}` }) ?? Promise.reject(new Error('no node'))),
      );
      asked.forEach((reply, i) => expect(reply.body.output).toBe(`alpha got: beta got: echo q${i}`));
      const rows = await n1.processes();
      expect(new Set(rows.map((row) => row.node))).toEqual(new Set(['n1', 'n2', 'n3']));
      // `goondan ps` on one node shows the whole cluster, with a NODE column.
      const ps = Bun.spawnSync([GOONDAN_BIN, 'ps', '--state-root', n2.stateRoot], { stdout: 'pipe', stderr: 'pipe' });
      const table = ps.stdout.toString();
      expect(table.split('\n')[0]).toStartWith('NODE');
      for (const id of ids) expect(table).toContain(`\n${id} `);
      const nodeOf = (agent: string, key: string) => rows.find((row) => row.agent === agent && row.instanceKey === key)?.node;
      const crossing = Array.from({ length: 9 }, (_, i) => i).find((i) => nodeOf('alpha', `q${i}`) !== nodeOf('beta', `q${i}`));
      expect(crossing).toBeDefined();
      const key = `q${crossing}`;
      const traceId = asked[crossing ?? 0]?.body.traceId;
      const byId = new Map([['n1', n1], ['n2', n2], ['n3', n3]]);
      for (const agent of ['alpha', 'beta']) {
        const holder = byId.get(String(nodeOf(agent, key)));
        if (!holder) throw new Error(`no node runs ${agent}/${key}`);
        const events = await readRuntimeEvents(holder.stateRoot, WORKSPACE, agent, key);
        expect(events.some((event) => event.type === 'turn.completed' && event.traceId === traceId)).toBe(true);
      }

      // 300 events over 30 keys to random live nodes; n2 is killed after 100, n3 drained after 200.
      const accepted = new Map<string, string>();
      const live = [n1, n2, n3];
      let drained: Promise<number> | undefined;
      for (let i = 0; i < 300; i++) {
        if (i === 100) {
          n2.proc.kill('SIGKILL');
          live.splice(live.indexOf(n2), 1);
        }
        if (i === 200) {
          drained = n3.stop('SIGTERM');
          live.splice(live.indexOf(n3), 1);
        }
        const node = live[Math.floor(Math.random() * live.length)] ?? n1;
        const eventId = await sendCount(node, `e${i}`, `k${i % 30}`);
        if (eventId) accepted.set(eventId, `e${i}`);
      }
      expect(await drained).toBe(0);
      expect(accepted.size).toBeGreaterThanOrEqual(290);

      const audit = await settled(h, accepted, nodes);
      const twice = [...audit.inputs].filter(([, count]) => count > 1);
      expect(twice).toEqual([]);
      const unanswered = [...accepted.values()].filter((label) => !audit.answers.has(`done ${label}`));
      expect(unanswered.map((label) => historyAround(audit.histories, `count ${label}`))).toEqual([]);
      const repeated = [...counterExecutions(h.counterFile)].filter(([, count]) => count > 1);
      expect(repeated).toEqual([]);
      // The survivor took over the killed node's partitions (not handed over: that node never came back).
      expect(await metric(n1, 'goondan_cluster_takeovers_total')).toBeGreaterThan(0);
      // and ends up owning every partition: one no key used is claimed on a later tick (~lease / 5)
      // than the audit may finish (seen once: 31 of 32 right after it).
      const owned = await waitFor('the survivor to own every partition', () => metric(n1, 'goondan_cluster_partitions_owned'), (count) => count === PARTITIONS);
      expect(owned).toBe(PARTITIONS);
    },
    600_000,
  );

  test(
    'a NATS server restart in the middle of traffic loses nothing accepted; /readyz follows the connection',
    async () => {
      const h = await harness();
      const ids = ['m1', 'm2'];
      const nodes = await Promise.all(ids.map((id) => startNode(h, id, RESTART_LEASE_SECONDS)));
      await partitionsSpread(nodes, ids);
      const accepted = new Map<string, string>();
      const sendSome = async (from: number, count: number) => {
        for (let i = from; i < from + count; i++) {
          const eventId = await sendCount(nodes[i % 2] ?? nodes[0] as Daemon, `r${i}`, `k${i % 10}`);
          if (eventId) accepted.set(eventId, `r${i}`);
        }
      };
      await sendSome(0, 40);
      // A restart as an operator does it (SIGTERM: the server flushes its store). A kill -9 of a
      // single NATS 2.9 server can lose its last acknowledged writes — see deploy/cluster/README.md.
      process.kill(h.nats.pid(), 'SIGTERM');
      await waitFor('/readyz of a node cut off from NATS to answer 503', async () => (await nodes[0]?.api('/readyz'))?.status, (status) => status === 503);
      await h.nats.restart();
      for (const node of nodes) await waitFor('/readyz to answer 200 again after NATS came back', async () => (await node.api('/readyz')).status, (status) => status === 200);
      await sendSome(40, 40);
      expect(accepted.size).toBeGreaterThanOrEqual(60);

      const audit = await settled(h, accepted, nodes);
      expect([...audit.inputs].filter(([, count]) => count > 1)).toEqual([]);
      expect([...accepted.values()].filter((label) => !audit.answers.has(`done ${label}`)).map((label) => historyAround(audit.histories, `count ${label}`))).toEqual([]);
      expect([...counterExecutions(h.counterFile)].filter(([, count]) => count > 1)).toEqual([]);
    },
    600_000,
  );

  test('a node that cannot reach NATS at start says so and exits 1', async () => {
    const run = Bun.spawn([GOONDAN_BIN, 'run', BUNDLE, '--port', '0', '--state-root', mkdtempSync(join(tmpdir(), 'goondan-cluster-')), '--cluster', 'nats://user:secret@127.0.0.1:1'], { stdout: 'pipe', stderr: 'pipe' });
    const [code, stderr] = await Promise.all([run.exited, new Response(run.stderr).text()]);
    expect(code).toBe(1);
    expect(stderr).toContain('CLUSTER_UNAVAILABLE');
    expect(stderr).toContain('nats://***@127.0.0.1:1');
    expect(stderr).not.toContain('secret');
  }, 60_000);
});
