/**
 * Cluster mode, with a real `nats-server -js`: what a turn tells anyone leaves its node only once the
 * turn's state is stored in the cluster, and never when that write was fenced (another node wrote
 * the instance since — here the test's own write, as in cluster-fenced-reply). The event then runs
 * again from the stored state, and that run's outcome is the one told. cluster-fenced-reply covers a
 * caller on another node; this file covers what was still told at once:
 * - the reply to an agent asking on the same node (agents__request): the asking agent went on with
 *   an answer the cluster then replaced, and stored its own turn on it;
 * - the outcome of an event nobody waits for (`wait: false`), in the ledger of the node that
 *   accepted it — this one, or another told by a notice: `GET /v1/events/{id}` showed the fenced
 *   run's answer for good (a ledger keeps the first outcome).
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { auditCluster, counterExecutions } from './cluster-audit.ts';
import { clusterHarnesses } from './cluster-harness.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';
import { writeAsNewOwner } from './new-owner-writes.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster-resume');
const WORKSPACE = 'cluster-resume';
const { cleanups, harness } = clusterHarnesses('goondan-cluster-fenced-outcomes-');

async function startNode(url: string, counterFile: string, nodeId: string): Promise<Daemon> {
  const gates = join(dirname(counterFile), 'gates');
  mkdirSync(gates, { recursive: true });
  const daemon = await startDaemon(BUNDLE, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', GOONDAN_TEST_COUNTER_FILE: counterFile, GOONDAN_TEST_GATE_DIR: gates },
    args: ['--cluster', url, '--node-id', nodeId, '--cluster-lease-seconds', '3'],
  });
  cleanups.push(() => daemon.cleanup());
  return daemon;
}

function release(counterFile: string, label: string): void {
  writeFileSync(join(dirname(counterFile), 'gates', label), '');
}

/** The answers (`assistant: …` lines) of `agent`'s stored turns, once `turns` are stored and every inbox message is done. */
async function storedAnswers(url: string, agent: string, turns: number): Promise<string[]> {
  const seen = await waitFor(
    `${turns} turn(s) of ${agent} stored in the cluster`,
    async () => {
      const audit = await auditCluster(url, WORKSPACE);
      return { backlog: audit.backlog, answers: [...audit.histories.values()].flat().filter((line) => line.startsWith(`assistant: ${agent} `)) };
    },
    (audit) => audit.backlog === 0 && audit.answers.length >= turns,
  );
  return seen.answers;
}

/** An accepted event's record on `node` once it is done (`GET /v1/events/{id}`). */
async function doneRecord(node: Daemon, eventId: string): Promise<Record<string, unknown>> {
  return waitFor(
    `event ${eventId} done in the ledger of the node that accepted it`,
    async () => (await (await node.api(`/v1/events/${eventId}`)).json()) as Record<string, unknown>,
    (record) => record.status === 'done',
  );
}

function outputOf(record: Record<string, unknown>): unknown {
  const reply = record.reply as Record<string, unknown> | undefined;
  return reply?.output;
}

describe('cluster: a turn whose state write is fenced', () => {
  test('does not answer an agent asking on the same node; the agent gets the answer of the run that is stored', async () => {
    const { nats, counterFile } = await harness();
    const node = await startNode(nats.url, counterFile, 'n1');
    await spreadOver([['n1', node]]);
    // alpha and beta in different partitions: beta's partition is given up and claimed again, alpha's stays.
    const key = Array.from({ length: 200 }, (_, i) => `a${i}`).find((k) => partitionOf({ agent: 'alpha', instanceKey: k }, PARTITIONS) !== partitionOf({ agent: 'beta', instanceKey: k }, PARTITIONS));
    if (key === undefined) throw new Error('no instance key with alpha and beta in different partitions among 200');

    const asked = node.send({ agent: 'alpha', instanceKey: key, input: `ask ${key}`, timeoutMs: 120_000 });
    await waitFor('beta’s tool running', () => counterExecutions(counterFile).get(key) ?? 0, (n) => n === 1);
    await writeAsNewOwner(nats.url, { workspaceId: WORKSPACE, agent: 'beta', instanceKey: key });
    release(counterFile, key);

    const answer = await asked;
    expect(answer.status).toBe(200);
    await node.waitForLog('beta’s state write fenced', (line) => line.msg === 'another node wrote this instance state: giving up the partition');
    const betaAnswers = await storedAnswers(nats.url, 'beta', 1);
    expect(betaAnswers).toHaveLength(1);
    // beta's fenced run answered `beta did <key>`; the stored run found its call started and not idempotent.
    expect(betaAnswers[0]).not.toBe(`assistant: beta did ${key}`);
    expect(answer.body.output).toBe(`alpha got: ${String(betaAnswers[0]).slice('assistant: '.length)}`);
    // The reply reached alpha once stored, so on disk: not marked as still to be synced (alpha would wait for a notice in vain).
    expect(node.logs.filter((line) => String(line.msg).startsWith('no word that the reply to this request reached its callee'))).toEqual([]);
  }, 240_000);

  test('does not become the recorded outcome of an event nobody waits for, on this node or the one that accepted it', async () => {
    const { nats, counterFile } = await harness();
    const [na, nb] = [await startNode(nats.url, counterFile, 'na'), await startNode(nats.url, counterFile, 'nb')];
    await spreadOver([['na', na], ['nb', nb]]);
    // Two beta instances run on nb: one event accepted by na (told by a notice), one by nb itself.
    const keys = Array.from({ length: 400 }, (_, i) => `o${i}`).filter((k) => rendezvousOwner(partitionOf({ agent: 'beta', instanceKey: k }, PARTITIONS), ['na', 'nb']) === 'nb');
    const [remote, local] = keys;
    if (remote === undefined || local === undefined) throw new Error('fewer than two beta instance keys owned by nb among 400');

    const accepted = [await na.send({ agent: 'beta', instanceKey: remote, input: `hold ${remote}`, wait: false }), await nb.send({ agent: 'beta', instanceKey: local, input: `hold ${local}`, wait: false })];
    expect(accepted.map((a) => a.status)).toEqual([202, 202]);
    const counted = () => [counterExecutions(counterFile).get(remote) ?? 0, counterExecutions(counterFile).get(local) ?? 0];
    await waitFor('both beta tools running on nb', counted, (n) => n[0] === 1 && n[1] === 1);
    for (const instanceKey of [remote, local]) await writeAsNewOwner(nats.url, { workspaceId: WORKSPACE, agent: 'beta', instanceKey });
    release(counterFile, remote);
    release(counterFile, local);

    const [told, own] = [await doneRecord(na, String(accepted[0]?.body.eventId)), await doneRecord(nb, String(accepted[1]?.body.eventId))];
    const stored = await storedAnswers(nats.url, 'beta', 2);
    expect(stored).toHaveLength(2);
    for (const record of [told, own]) {
      expect(stored).toContain(`assistant: ${String(outputOf(record))}`);
      expect(String(outputOf(record))).not.toMatch(/^beta did o\d+$/);
    }
  }, 240_000);
});
