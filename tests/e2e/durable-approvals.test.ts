/**
 * Issue 10, durable approvals: a pending `ask` is a record in the instance's state that outlives
 * the daemon — after a kill -9 and a restart it is listed with the same id and createdAt,
 * approving it over HTTP completes the original turn, and the original wait=true caller,
 * reconnecting with the same Idempotency-Key, gets that turn's reply. "Always for this session"
 * grants are kept per instance across restarts.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { type Daemon, startDaemon, tempStateRoot } from './daemon-harness.ts';

const BUNDLE = resolve(import.meta.dir, '../fixtures/e2e/durable-approvals');
const daemons: Daemon[] = [];
afterEach(() => {
  for (const daemon of daemons.splice(0)) daemon.cleanup();
});

async function start(stateRoot: string): Promise<Daemon> {
  const daemon = await startDaemon(BUNDLE, { stateRoot, env: { GOONDAN_APPROVALS: 'http' } });
  daemons.push(daemon);
  return daemon;
}

type Approval = { id: string; createdAt: string; expiresAt: string; toolName: string; args: Record<string, unknown> };

async function pendingApprovals(daemon: Daemon): Promise<Approval[]> {
  const body = (await (await daemon.api('/v1/approvals')).json()) as { approvals: Approval[] };
  return body.approvals;
}

async function waitForApproval(daemon: Daemon, what: string): Promise<Approval> {
  const deadline = Date.now() + 60_000;
  let seen: Approval[] = [];
  while (Date.now() < deadline) {
    seen = await pendingApprovals(daemon);
    if (seen[0]) return seen[0];
    await Bun.sleep(100);
  }
  throw new Error(`timed out waiting for ${what}; GET /v1/approvals said ${JSON.stringify(seen)}`);
}

function sendWithKey(daemon: Daemon, input: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return daemon
    .api('/v1/events', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ input, instanceKey: 'desk', timeoutMs: 120_000 }) })
    .then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
}

function decide(daemon: Daemon, id: string, body: Record<string, unknown>): Promise<Response> {
  return daemon.api(`/v1/approvals/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('a pending approval survives kill -9 of the daemon', () => {
  test('listed after restart with the same id and createdAt; approving completes the original turn; the reconnecting caller gets its reply', async () => {
    const stateRoot = tempStateRoot();
    const first = await start(stateRoot);
    // The original caller waits (wait=true) and loses its connection when the daemon dies.
    const original = sendWithKey(first, 'write notes.md', 'approval-key').catch((error: unknown) => ({ status: 0, body: { lost: String(error) } }));
    const asked = await waitForApproval(first, 'the write to wait for approval');
    first.proc.kill('SIGKILL');
    await first.proc.exited;
    expect((await original).status).toBe(0);

    const second = await start(stateRoot);
    const listed = await waitForApproval(second, 'the approval to be listed after the restart');
    expect(listed).toMatchObject({ id: asked.id, createdAt: asked.createdAt, expiresAt: asked.expiresAt, toolName: 'file-system__write' });
    // The caller reconnects with the same key; nothing has written the file yet.
    const reconnected = sendWithKey(second, 'write notes.md', 'approval-key');
    const workspace = instancePaths(stateRoot, 'approvals', 'writer', 'desk').workdir;
    expect(existsSync(join(workspace, 'notes.md'))).toBe(false);
    expect((await decide(second, asked.id, { decision: 'approve' })).status).toBe(200);

    const reply = await reconnected;
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'ok', output: 'wrote: notes.md' });
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('approved content');
    expect(await pendingApprovals(second)).toEqual([]);
    // The one turn of that event: its input is in the history once.
    const base = readFileSync(instancePaths(stateRoot, 'approvals', 'writer', 'desk').baseMessages, 'utf8');
    expect(base.split('\n').filter((line) => line.includes(`"eventId":"${String(reply.body.eventId)}"`))).toHaveLength(1);
  }, 180_000);

  test('"always for this session" is stored per instance: after a restart the same call runs without asking; another call of the tool asks', async () => {
    const stateRoot = tempStateRoot();
    const first = await start(stateRoot);
    const turn = sendWithKey(first, 'write a.md', 'grant-1');
    const asked = await waitForApproval(first, 'the first write to ask');
    expect((await decide(first, asked.id, { decision: 'approve', scope: 'session' })).status).toBe(200);
    expect((await turn).body).toMatchObject({ output: 'wrote: a.md' });
    expect(await first.stop()).toBe(0);

    const second = await start(stateRoot);
    const again = await sendWithKey(second, 'write a.md', 'grant-2');
    expect(again.body).toMatchObject({ status: 'ok', output: 'wrote: a.md' });
    expect(await pendingApprovals(second)).toEqual([]);
    // The grant was for that call: writing another file is asked (approving `touch x` must not approve `rm -rf ~`).
    void sendWithKey(second, 'write b.md', 'grant-3').catch(() => undefined);
    const other = await waitForApproval(second, 'a write of another file to ask');
    expect(other.args).toMatchObject({ path: 'b.md' });
  }, 180_000);
});
