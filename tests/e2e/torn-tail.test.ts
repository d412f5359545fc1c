/**
 * A torn last line left in an instance's append-only files while the daemon was down (a crash, a
 * power loss under fsync batch|never, a full disk) must not swallow what is appended next: an
 * event accepted afterwards and interrupted by a kill -9 of the daemon is redelivered and answered,
 * and its user message stays in the history. The turn waits in the fixture's `probe__hold` tool
 * until the test releases it, so the kill lands mid-turn on any machine.
 */
import { describe, expect, test } from 'bun:test';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, REPO_ROOT, daemonsKilledAfterEach, isRunning, startDaemon, tempStateRoot, waitFor } from './daemon-harness.ts';
import { holdGates } from './hold-gates.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemons = daemonsKilledAfterEach();

const gates = holdGates();

async function start(stateRoot: string): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, { stateRoot });
  daemons.push(daemon);
  return daemon;
}

async function post(daemon: Daemon, body: Record<string, unknown>, key: string): Promise<{ status: number; body: Record<string, unknown>; replayed: boolean }> {
  const response = await daemon.api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

async function eventState(daemon: Daemon, eventId: string): Promise<Record<string, unknown>> {
  return (await (await daemon.api(`/v1/events/${eventId}`)).json()) as Record<string, unknown>;
}

/** The base's records that parse, as their JSON text (a glued or torn line is what a load skips). */
function parsedBaseRecords(base: string): string[] {
  const out: string[] = [];
  for (const line of readFileSync(base, 'utf8').split('\n')) {
    try {
      out.push(JSON.stringify(JSON.parse(line)));
    } catch {
      // skipped on load, as the agent skips it
    }
  }
  return out;
}

describe('a torn last line left while the daemon was down', () => {
  test('an event accepted after it, interrupted by kill -9 of the daemon, is redelivered and answered, and stays in the history', async () => {
    const stateRoot = tempStateRoot();
    const paths = instancePaths(stateRoot, 'e2e', 'alpha', 'torn');
    const first = await start(stateRoot);
    expect((await first.send({ input: 'remember before', agent: 'alpha', instanceKey: 'torn' })).body).toMatchObject({ status: 'ok' });
    expect(await first.stop()).toBe(0);
    appendFileSync(paths.inbox, '{"op":"put","agent":"a","inst');
    appendFileSync(paths.baseMessages, '{"id":"msg_torn","role":"user","con');

    const second = await start(stateRoot);
    const gate = gates.path('torn');
    const input = `hold ${gate}`;
    const accepted = await post(second, { input, agent: 'alpha', instanceKey: 'torn', wait: false }, 'torn-key');
    expect(accepted.status).toBe(202);
    const eventId = String(accepted.body.eventId);
    const [childPid = 0] = await waitFor('alpha:torn to be inside its tool call', () => gates.heldPids(gate), (pids) => pids.length === 1);
    await second.stop('SIGKILL');
    await waitFor(`the orphaned agent (pid ${childPid}) to exit`, () => isRunning(childPid), (alive) => !alive);
    gates.release(gate);

    const third = await start(stateRoot);
    const done = await waitFor(`event ${eventId} to be redelivered and done`, () => eventState(third, eventId), (state) => state.status === 'done');
    expect(done).toMatchObject({ eventId, reply: { status: 'ok', output: 'released' } });
    const retried = await post(third, { input, agent: 'alpha', instanceKey: 'torn' }, 'torn-key');
    expect(retried).toMatchObject({ status: 200, replayed: true, body: { eventId, output: 'released' } });
    // The base's torn line was cut before the first message was folded after it: none was glued on.
    const records = parsedBaseRecords(paths.baseMessages);
    expect(records.filter((record) => record.includes('remember before'))).not.toEqual([]);
    expect(records.filter((record) => record.includes(`"${input}"`))).toHaveLength(1);
    // Each cut was a warning naming the file and the bytes dropped (lines a killed daemon wrote stay readable).
    const inboxCut = await second.waitForLog('the inbox’s torn tail cut', (l) => l.code === 'W_JSONL_TORN_TAIL_CUT' && l.file === paths.inbox);
    expect(inboxCut).toMatchObject({ level: 'warn', droppedBytes: 29 });
    const baseCut = await third.waitForLog('the base’s torn tail cut', (l) => l.code === 'W_JSONL_TORN_TAIL_CUT' && l.file === paths.baseMessages);
    expect(baseCut).toMatchObject({ level: 'warn', droppedBytes: 35, agent: 'alpha', instanceKey: 'torn' });
  });
});
