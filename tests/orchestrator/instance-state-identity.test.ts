/**
 * Instance keys map one-to-one to state: injective directory names, the key validator every
 * ingress uses, the migration of directories named the old (lossy) way, and the CLI's offline view
 * that reads identity from the files instead of the directory name.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listInstanceDirs } from '../../orchestrator/cli/instance-dirs.ts';
import { DurableInbox } from '../../orchestrator/delivery/durable-inbox.ts';
import { migrateInstanceDirs } from '../../orchestrator/delivery/migrate-instance-dirs.ts';
import { makeEvent } from '../../shared/ipc/control-events.ts';
import { MAX_INSTANCE_KEY_BYTES, validateInstanceKey } from '../../shared/instance-key.ts';
import { instanceDirName, instancePaths, instancesDir, isHashedInstanceDirName, legacyInstanceDirName } from '../../shared/state-paths.ts';

const roots: string[] = [];
function stateRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-instance-identity-'));
  roots.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const WS = 'ws';
const event = (input: string) => makeEvent('api.input', { kind: 'api', name: 'test' }, { input });

/** An instance directory as the old code named it, with the files it wrote. */
function oldDir(root: string, agent: string, key: string, files: { metadata?: boolean; puts?: Array<{ key: string; input: string }>; acks?: string[] } = {}): string {
  const dir = join(instancesDir(root, WS), legacyInstanceDirName(agent, key));
  mkdirSync(join(dir, 'messages'), { recursive: true });
  writeFileSync(join(dir, 'messages', 'base.jsonl'), `{"history of":${JSON.stringify(key)}}\n`);
  if (files.metadata !== false) {
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ status: 'idle', agentName: agent, instanceKey: key, createdAt: 'x', updatedAt: 'y' }));
  }
  const lines = (files.puts ?? []).map((put) => JSON.stringify({ op: 'put', agent, instanceKey: put.key, event: { ...event(put.input), id: `evt-${put.input}` } }));
  lines.push(...(files.acks ?? []).map((id) => JSON.stringify({ op: 'ack', eventId: id })));
  if (lines.length > 0) writeFileSync(join(dir, 'inbox.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

const pendingInputs = (path: string) =>
  existsSync(path)
    ? DurableInbox.open(path, '', '')
        .unacked()
        .map((e) => e.input)
    : [];

describe('instance directory names are injective', () => {
  test('keys whose slugs agree get different directories', () => {
    const groups = [
      ['alice.x', 'alice-x', 'alice/x', 'alice x'],
      ['k.1', 'k-1', 'k/1', 'k:1'],
      ['키값', '값키', 'ключ', 'κλει'],
      ['', '-', '.'],
    ];
    for (const keys of groups) {
      const names = keys.map((key) => instanceDirName('coder', key));
      expect(new Set(names).size).toBe(keys.length);
    }
    // Two non-ASCII keys of the same length had the same old name.
    expect(legacyInstanceDirName('coder', '키값')).toBe(legacyInstanceDirName('coder', '값키'));
  });

  test('the agent is part of the identity: the same key under two agents differs', () => {
    expect(instanceDirName('a', 'b--c')).not.toBe(instanceDirName('a--b', 'c'));
  });

  test('names stay readable, portable and short', () => {
    const name = instanceDirName('coder', 'user:42');
    expect(name).toMatch(/^coder--user-42\.[0-9a-f]{12}$/);
    expect(isHashedInstanceDirName(name)).toBe(true);
    expect(isHashedInstanceDirName(legacyInstanceDirName('coder', 'user:42'))).toBe(false);
    const long = instanceDirName('coder', 'x'.repeat(MAX_INSTANCE_KEY_BYTES));
    expect(Buffer.byteLength(long)).toBeLessThan(100);
    expect(instanceDirName('coder', 'k')).toBe(instanceDirName('coder', 'k'));
  });

  test('instancePaths puts every file of an instance under that name', () => {
    const paths = instancePaths('/state', WS, 'coder', 'alice.x');
    expect(paths.root).toBe(join('/state/workspaces', WS, 'instances', instanceDirName('coder', 'alice.x')));
    expect(paths.inbox.startsWith(paths.root)).toBe(true);
  });
});

describe('validateInstanceKey (every ingress refuses bad keys)', () => {
  test('ordinary keys, including non-ASCII and punctuation, are fine', () => {
    for (const key of ['default', 'user:42', 'alice.x', 'k/1', '키값 with spaces', '😀', 'x'.repeat(MAX_INSTANCE_KEY_BYTES)]) {
      expect(validateInstanceKey(key)).toBeUndefined();
    }
  });

  test('control characters, NUL included, are refused with their position', () => {
    expect(validateInstanceKey('a\u0000b')).toContain('U+0000 at position 1');
    for (const key of ['tab\there', 'new\nline', 'esc\u001b[31m', 'del\u007f', 'c1\u0085']) {
      expect(validateInstanceKey(key)).toContain('control character');
    }
  });

  test('keys over 256 bytes of UTF-8 are refused, counted in bytes not characters', () => {
    expect(validateInstanceKey('x'.repeat(MAX_INSTANCE_KEY_BYTES + 1))).toContain('257 bytes');
    // 86 three-byte characters: 86 characters but 258 bytes.
    expect(validateInstanceKey('값'.repeat(86))).toContain('258 bytes');
    expect(validateInstanceKey('값'.repeat(85))).toBeUndefined();
  });

  test('half a surrogate pair is refused (it has no UTF-8 form)', () => {
    expect(validateInstanceKey('a\uD800b')).toContain('lone surrogate');
  });
});

describe('migrateInstanceDirs renames old-style directories on daemon start', () => {
  test('a directory with metadata moves to its new name with everything in it', () => {
    const root = stateRoot();
    oldDir(root, 'coder', 'alice.x', { puts: [{ key: 'alice.x', input: 'one' }, { key: 'alice.x', input: 'two' }], acks: ['evt-one'] });
    const report = migrateInstanceDirs(root, WS);
    const paths = instancePaths(root, WS, 'coder', 'alice.x');
    expect(report.renamed).toEqual([{ agent: 'coder', instanceKey: 'alice.x', from: join(instancesDir(root, WS), 'coder--alice-x'), to: paths.root }]);
    expect(readFileSync(paths.baseMessages, 'utf8')).toContain('alice.x');
    expect(pendingInputs(paths.inbox)).toEqual(['two']);
    expect(readdirSync(instancesDir(root, WS))).toEqual([instanceDirName('coder', 'alice.x')]);
  });

  test('without metadata, the inbox records name the owner', () => {
    const root = stateRoot();
    oldDir(root, 'coder', 'k.1', { metadata: false, puts: [{ key: 'k.1', input: 'a' }] });
    expect(migrateInstanceDirs(root, WS).renamed.map((r) => r.instanceKey)).toEqual(['k.1']);
    expect(pendingInputs(instancePaths(root, WS, 'coder', 'k.1').inbox)).toEqual(['a']);
  });

  test('collided keys: the directory stays with the key in metadata, the others get their pending events in their own directories', () => {
    const root = stateRoot();
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_obj: object, msg?: string) => void warnings.push(msg ?? '') };
    oldDir(root, 'coder', 'k.1', {
      puts: [
        { key: 'k.1', input: 'mine' },
        { key: 'k-1', input: 'theirs' },
        { key: 'k/1', input: 'third-done' },
        { key: 'k/1', input: 'third' },
      ],
      acks: ['evt-third-done'],
    });
    const report = migrateInstanceDirs(root, WS, logger);
    expect(report.renamed.map((r) => r.instanceKey)).toEqual(['k.1']);
    expect(report.movedEvents.map((m) => `${m.instanceKey}:${m.eventId}`)).toEqual(['k-1:evt-theirs', 'k/1:evt-third']);
    expect(pendingInputs(instancePaths(root, WS, 'coder', 'k.1').inbox)).toEqual(['mine']);
    expect(pendingInputs(instancePaths(root, WS, 'coder', 'k-1').inbox)).toEqual(['theirs']);
    expect(pendingInputs(instancePaths(root, WS, 'coder', 'k/1').inbox)).toEqual(['third']);
    // The mixed history stays with the metadata's key only.
    expect(existsSync(instancePaths(root, WS, 'coder', 'k-1').baseMessages)).toBe(false);
    expect(warnings.some((w) => w.includes('several instance keys shared one old state directory'))).toBe(true);
  });

  test('a directory whose owner cannot be told is left in place and reported', () => {
    const root = stateRoot();
    const unknown = oldDir(root, 'coder', 'mystery', { metadata: false });
    const ambiguous = oldDir(root, 'coder', 'a.b', { metadata: false, puts: [{ key: 'a.b', input: '1' }, { key: 'a-b', input: '2' }] });
    const report = migrateInstanceDirs(root, WS);
    expect(report.renamed).toEqual([]);
    expect(report.left.map((l) => l.dir).sort()).toEqual([ambiguous, unknown].sort());
    expect(report.left.find((l) => l.dir === ambiguous)?.reason).toContain('several instance keys are recorded');
    expect(existsSync(unknown) && existsSync(ambiguous)).toBe(true);
  });

  test('an existing new-style directory is never overwritten', () => {
    const root = stateRoot();
    const old = oldDir(root, 'coder', 'alice.x');
    mkdirSync(instancePaths(root, WS, 'coder', 'alice.x').root, { recursive: true });
    const report = migrateInstanceDirs(root, WS);
    expect(report.left).toEqual([{ dir: old, reason: `${instancePaths(root, WS, 'coder', 'alice.x').root} already exists` }]);
    expect(existsSync(old)).toBe(true);
  });

  test('running it again changes nothing, and an empty state root is fine', () => {
    const root = stateRoot();
    expect(migrateInstanceDirs(root, WS)).toEqual({ renamed: [], left: [], movedEvents: [] });
    oldDir(root, 'coder', 'x.y');
    migrateInstanceDirs(root, WS);
    expect(migrateInstanceDirs(root, WS)).toEqual({ renamed: [], left: [], movedEvents: [] });
  });
});

describe('the CLI reads an instance identity from its files, not its directory name', () => {
  test('metadata.json, else the inbox records; a directory with neither is skipped', () => {
    const root = stateRoot();
    const withMeta = instancePaths(root, WS, 'coder', 'alice.x');
    mkdirSync(withMeta.root, { recursive: true });
    writeFileSync(withMeta.metadata, JSON.stringify({ status: 'idle', agentName: 'coder', instanceKey: 'alice.x', createdAt: 'c', updatedAt: 'u' }));
    const inboxOnly = instancePaths(root, WS, 'coder', 'k/1');
    const inbox = DurableInbox.open(inboxOnly.inbox, 'coder', 'k/1');
    inbox.append(event('hello'));
    inbox.close();
    mkdirSync(join(instancesDir(root, WS), 'stray--dir'), { recursive: true });
    const listed = listInstanceDirs(root, WS).map((i) => `${i.agentName}@${i.instanceKey}`).sort();
    expect(listed).toEqual(['coder@alice.x', 'coder@k/1']);
  });
});
