/**
 * Cluster mode, with a real `nats-server -js`: once a node's state write for an instance was
 * fenced — another node wrote the instance since, as a node that took its partition over does —
 * the node writes that instance no more until it restores it again. Before, the fenced write made
 * the node forget its revision, and its next write (the state stored before a tool acts) was a plain
 * put: it overwrote the new owner's conversation with the fenced node's (whose turn the cluster had
 * refused), and the next run found that tool call started and reported it interrupted.
 *
 * To hit the window every time, the test lines the two writes up behind each other: with the daemon
 * stopped (SIGSTOP), its agent ends a turn (its ack-time write) and reaches the next turn's tool
 * (its pre-tool write); continued, the daemon reads both requests at once, and the second waits for
 * the first, which the "new owner's" write (made by the test, as in cluster-fenced-reply) fences.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { auditCluster, counterExecutions } from './cluster-audit.ts';
import { clusterHarnesses } from './cluster-harness.ts';
import { spreadOver } from './cluster-spread.ts';
import { startDaemon, waitFor } from './daemon-harness.ts';
import { storedFiles, writeAsNewOwner } from './new-owner-writes.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/cluster-resume');
const WORKSPACE = 'cluster-resume';
/** A file only the new owner's state has (the agent reads no extension of that name). */
const MARKER = 'extensions/new-owner.json';
const { cleanups, harness } = clusterHarnesses('goondan-cluster-fenced-writes-');

describe('cluster: after a fenced state write', () => {
  test('the node’s next write of the instance is refused: the new owner’s state stays, and both turns run from it', async () => {
    const { nats, counterFile } = await harness();
    const gates = join(dirname(counterFile), 'gates');
    mkdirSync(gates);
    const node = await startDaemon(BUNDLE, {
      env: { GOONDAN_WARM_POOL: '0', GOONDAN_TEST_COUNTER_FILE: counterFile, GOONDAN_TEST_GATE_DIR: gates },
      args: ['--cluster', nats.url, '--node-id', 'n1', '--cluster-lease-seconds', '3'],
    });
    cleanups.push(() => node.cleanup());
    // A test that fails while the daemon is stopped must not leave it stopped.
    cleanups.push(() => void (node.proc.exitCode === null && process.kill(node.proc.pid, 'SIGCONT')));
    await spreadOver([['n1', node]]);
    const key = 'w1';
    const beta = { workspaceId: WORKSPACE, agent: 'beta', instanceKey: key };
    const [first, second] = [`${key}-a`, `${key}-b`];

    const one = await node.send({ agent: 'beta', instanceKey: key, input: `hold ${first}`, wait: false });
    expect(one.status).toBe(202);
    // The first turn's tool runs: the state before it (the call started) is stored.
    await waitFor('the first turn’s tool running', () => counterExecutions(counterFile).get(first) ?? 0, (n) => n === 1);
    const two = await node.send({ agent: 'beta', instanceKey: key, input: `hold ${second}`, wait: false });
    expect(two.status).toBe(202);
    const paths = instancePaths(node.stateRoot, WORKSPACE, 'beta', key);
    // The second event is written to the instance's inbox and sent to its process in one go; one
    // answer later the daemon is past that send.
    await waitFor('the second event in the instance’s inbox', () => existsSync(paths.inbox) && readFileSync(paths.inbox, 'utf8').includes(String(two.body.eventId)), (found) => found);
    expect((await node.api('/healthz')).status).toBe(200);
    await writeAsNewOwner(nats.url, beta, { [MARKER]: '{"writtenBy":"the new owner"}' });

    process.kill(node.proc.pid, 'SIGSTOP');
    writeFileSync(join(gates, first), '');
    // The first turn ends (its ack asks for a write) and the second reaches its tool (its state
    // write asked for before the handler): both wait in the stopped daemon's pipe.
    await waitFor('the second turn’s tool call started', () => (existsSync(paths.toolJournal) ? readFileSync(paths.toolJournal, 'utf8') : ''), (journal) => journal.includes(`"label":"${second}"`));
    process.kill(node.proc.pid, 'SIGCONT');
    writeFileSync(join(gates, second), '');

    await node.waitForLog('the first turn’s write fenced', (line) => line.msg === 'another node wrote this instance state: giving up the partition');
    // The node claims the partition again, restores the new owner's state and runs both events from it.
    const answers = await waitFor(
      'both events’ turns stored in the cluster',
      async () => {
        const audit = await auditCluster(nats.url, WORKSPACE);
        return { backlog: audit.backlog, answers: [...audit.histories.values()].flat().filter((line) => line.startsWith('assistant: beta did')) };
      },
      (audit) => audit.backlog === 0 && audit.answers.length === 2,
    );
    expect(Object.keys(await storedFiles(nats.url, beta))).toContain(MARKER);
    // The fenced node's run of the first turn is not the stored one: in the new owner's state its
    // (not idempotent) call had started, and the run from there reports it interrupted.
    expect(answers.answers).not.toContain(`assistant: beta did ${first}`);
    // The second turn's tool ran once, from the new owner's state (a stored pre-tool write of the
    // fenced node would have made it "interrupted" there, never run).
    expect(answers.answers).toContain(`assistant: beta did ${second}`);
    expect(counterExecutions(counterFile).get(second)).toBe(1);
  }, 240_000);
});
