/**
 * Cluster mode, with a real `nats-server -js`: the node of an agent that asked another agent dies
 * while the callee works. The requester's instance is taken over by another node, resumes its
 * `agents__request` and sends it again under the same event id (so that the callee runs it once).
 * That re-sent request must reach the callee's owner, which answers it from the callee's history —
 * whether the callee had finished (its first reply went to the dead node) or was still working (the
 * re-sent request waits for that turn, then gets its answer). Before, JetStream took the re-sent
 * request for a duplicate of the first (same msgID, within its de-duplication window) and never
 * delivered it: the resumed call waited out its timeout and the HTTP caller got no answer.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { type NatsServer, natsAndTempDir } from '../helpers/nats-server.ts';
import { counterExecutions } from './cluster-audit.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, readRuntimeEvents, startDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster-resume');
const WORKSPACE = 'cluster-resume';
/** Short: the takeover of the dead node's partitions is what the test waits for. */
const LEASE_SECONDS = '3';
/** Well under a resumed call's own timeout (60 s): waiting longer proves nothing. */
const CONDITION_MS = 45_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Cluster {
  nats: NatsServer;
  counterFile: string;
  gateDir: string;
}

async function cluster(): Promise<Cluster> {
  const { nats, dir } = await natsAndTempDir(cleanups, 'goondan-cluster-resume-');
  const gateDir = join(dir, 'gates');
  mkdirSync(gateDir);
  return { nats, counterFile: join(dir, 'counter.jsonl'), gateDir };
}

async function startNode(c: Cluster, nodeId: string): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: c.counterFile, GOONDAN_TEST_GATE_DIR: c.gateDir },
    args: ['--cluster', c.nats.url, '--node-id', nodeId, '--cluster-lease-seconds', LEASE_SECONDS],
  });
  cleanups.push(() => daemon.cleanup());
  return daemon;
}

const ownerOf = (agent: string, instanceKey: string, members: string[]) => rendezvousOwner(partitionOf({ agent, instanceKey }, PARTITIONS), members);

describe('cluster: a resumed agents__request after the requester’s node died', () => {
  test('reaches the callee’s owner and gets its one answer, whether the callee had finished or was still working', async () => {
    const c = await cluster();
    const ids = ['na', 'nb', 'nc'];
    const [na, nb, nc] = await Promise.all(ids.map((id) => startNode(c, id)));
    if (!na || !nb || !nc) throw new Error('three nodes did not start');
    await spreadOver([['na', na], ['nb', nb], ['nc', nc]]);
    // alpha on na, then on nc once na is gone; beta on nb throughout (the caller waits on nb).
    const keys = Array.from({ length: 2000 }, (_, i) => `r${i}`).filter(
      (key) => ownerOf('alpha', key, ids) === 'na' && ownerOf('alpha', key, ['nb', 'nc']) === 'nc' && ownerOf('beta', key, ids) === 'nb',
    );
    const [finished, working] = keys;
    if (finished === undefined || working === undefined) throw new Error('fewer than two instance keys with alpha on na (then nc) and beta on nb among 2000');

    const asked = [finished, working].map((key) => nb.send({ input: `ask ${key}`, instanceKey: key, timeoutMs: 90_000 }));
    await waitFor('beta’s tool running for both requests', () => counterExecutions(c.counterFile), (counts) => counts.get(finished) === 1 && counts.get(working) === 1, CONDITION_MS);

    na.proc.kill('SIGKILL');
    await na.proc.exited;
    // This one finishes before alpha is taken over: its reply went to the dead node.
    writeFileSync(join(c.gateDir, finished), '');
    await waitFor(
      `beta’s turn for ${finished} completed on nb`,
      async () => (await readRuntimeEvents(nb.stateRoot, WORKSPACE, 'beta', finished)).filter((event) => event.type === 'turn.completed').length,
      (count) => count === 1,
      CONDITION_MS,
    );
    // This one is still working when alpha, resumed on nc, asks again: the re-sent request waits for its turn.
    await nb.waitForLog('the re-sent request held behind the running one on nb', (line) => String(line.msg).startsWith('a request sent again while its first delivery is in progress'), CONDITION_MS);
    writeFileSync(join(c.gateDir, working), '');

    const [first, second] = await Promise.all(asked);
    expect(first).toMatchObject({ status: 200, body: { status: 'ok', output: `alpha got: beta did ${finished}` } });
    expect(second).toMatchObject({ status: 200, body: { status: 'ok', output: `alpha got: beta did ${working}` } });
    // alpha was resumed on nc, and beta's tool ran once for each.
    expect(nc.logs.filter((line) => line.msg === 'resumed turn: running an interrupted idempotent tool call again').length).toBe(2);
    expect(counterExecutions(c.counterFile)).toEqual(new Map([[finished, 1], [working, 1]]));
  }, 240_000);
});
