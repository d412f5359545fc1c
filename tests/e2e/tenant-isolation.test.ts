/**
 * Instance keys map one-to-one to state (issue 9): keys that used to slug to the same directory
 * keep separate histories and inboxes — also across a kill -9 of the daemon — and keys that cannot
 * name a conversation are refused at the API with 400.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths, legacyInstanceDirName } from '../../shared/state-paths.ts';
import { type Daemon, REPO_ROOT, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
/** Pairs and triples that one slug rule (`[^A-Za-z0-9_-]` → `-`) sent to one directory. */
const COLLIDING = ['alice.x', 'alice-x', 'k.1', 'k-1', 'k/1', '한글', '漢字'];

const daemons: Daemon[] = [];
afterAll(async () => {
  for (const d of daemons) {
    await d.stop('SIGKILL').catch(() => 0);
    d.cleanup();
  }
});

const history = (stateRoot: string, key: string) => {
  const file = instancePaths(stateRoot, 'e2e', 'alpha', key).baseMessages;
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

describe('colliding keys keep separate state', () => {
  test('each key has its own directory and history; nothing of one key reaches another, also after kill -9 and restart', async () => {
    const stateRoot = tempStateRoot();
    const first = await startDaemon(BUNDLE, { stateRoot });
    daemons.push(first);
    for (const key of COLLIDING) {
      const { status } = await first.send({ input: `remember the secret of ${key}`, instanceKey: key });
      expect(status).toBe(200);
    }
    const dirs = new Set(COLLIDING.map((key) => instancePaths(stateRoot, 'e2e', 'alpha', key).root));
    expect(dirs.size).toBe(COLLIDING.length);
    expect(readdirSync(join(stateRoot, 'workspaces', 'e2e', 'instances')).filter((n) => n.startsWith('alpha--')).length).toBe(COLLIDING.length);

    // Accepted but not yet processed when the daemon dies: the inbox of each key must keep its own.
    for (const key of COLLIDING) expect((await first.send({ input: `second note of ${key}`, instanceKey: key, wait: false })).status).toBe(202);
    await first.stop('SIGKILL');
    const second = await startDaemon(BUNDLE, { stateRoot });
    daemons.push(second);
    await waitUntil(() => COLLIDING.every((key) => history(stateRoot, key).includes(`second note of ${key}`)), 'every key to process its own second note');
    for (const key of COLLIDING) {
      const text = history(stateRoot, key);
      expect(text).toContain(`remember the secret of ${key}`);
      for (const other of COLLIDING.filter((k) => k !== key)) {
        expect({ key, leaked: text.includes(`secret of ${other}"`) || text.includes(`note of ${other}"`) }).toEqual({ key, leaked: false });
      }
    }
  });
});

describe('state written by an older goondan', () => {
  test('an instance directory with the old slug name is moved to its injective name on start and its history continues', async () => {
    const stateRoot = tempStateRoot();
    const legacy = join(stateRoot, 'workspaces', 'e2e', 'instances', legacyInstanceDirName('alpha', 'old.key'));
    mkdirSync(join(legacy, 'messages'), { recursive: true });
    const now = new Date().toISOString();
    writeFileSync(join(legacy, 'metadata.json'), JSON.stringify({ status: 'idle', agentName: 'alpha', instanceKey: 'old.key', createdAt: now, updatedAt: now }));
    const old = { id: 'msg_legacy_1', data: { role: 'user', content: 'written before the upgrade' }, metadata: {}, createdAt: now, source: { type: 'user' } };
    writeFileSync(join(legacy, 'messages', 'base.jsonl'), `${JSON.stringify(old)}\n`);
    const daemon = await startDaemon(BUNDLE, { stateRoot });
    daemons.push(daemon);
    expect(existsSync(legacy)).toBe(false);
    expect((await daemon.send({ input: 'after the upgrade', instanceKey: 'old.key' })).body.status).toBe('ok');
    const text = history(stateRoot, 'old.key');
    expect(text).toContain('written before the upgrade');
    expect(text).toContain('after the upgrade');
  });
});

describe('keys that cannot name a conversation are refused', () => {
  test('a NUL or another control character, more than 256 bytes, or . and .. (which a URL cannot address), is a 400 naming the problem; the daemon keeps serving', async () => {
    const daemon = await startDaemon(BUNDLE);
    daemons.push(daemon);
    for (const [key, expected] of [
      ['nul\u0000key', 'control character U+0000'],
      ['tab\tkey', 'control character U+0009'],
      ['가'.repeat(90), 'bytes long'],
      ['..', 'cannot be addressed in a URL path'],
      ['.', 'cannot be addressed in a URL path'],
    ] as const) {
      const { status, body } = await daemon.send({ input: 'hi', instanceKey: key });
      expect({ status, code: (body.error as { code?: string } | undefined)?.code }).toEqual({ status: 400, code: 'E_HTTP_BAD_INSTANCE_KEY' });
      expect(String((body.error as { message?: string }).message)).toContain(expected);
    }
    expect((await daemon.api(`/v1/instances/${encodeURIComponent('bad\u0001')}`, { method: 'DELETE' })).status).toBe(400);
    expect((await daemon.send({ input: 'still there?', instanceKey: 'fine' })).body.status).toBe('ok');
    expect((await daemon.processes()).some((p) => p.status === 'crashLoopBackOff')).toBe(false);
  });
});
