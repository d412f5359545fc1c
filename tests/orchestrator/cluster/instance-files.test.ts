/**
 * A cluster snapshot is of one instant. The agent folds a turn in steps (append to the base, then
 * clear the events), each recoverable; the daemon reading the files one by one while that happens
 * could take the base before the append and the events after the clearing — a snapshot without
 * the turn, which a new owner would restore. Here the fold runs exactly between two reads.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempStateRoot } from '../../agent-process/helpers/engine-fixture.ts';

const READER = resolve(import.meta.dir, '../../fixtures/crash/fold-while-read.ts');

describe('reading an instance’s state files', () => {
  test('a fold between two reads is read again: the snapshot has the turn once, in the base', () => {
    const root = tempStateRoot();
    mkdirSync(join(root, 'messages'), { recursive: true });
    writeFileSync(join(root, 'messages/base.jsonl'), '{"id":"m1"}\n');
    writeFileSync(join(root, 'messages/events.jsonl'), '{"type":"append","message":{"id":"m2"}}\n');

    const run = Bun.spawnSync([process.execPath, READER, root], { stdout: 'pipe', stderr: 'pipe' });
    expect(run.stderr.toString()).toBe('');
    const { folded, files } = JSON.parse(run.stdout.toString()) as { folded: boolean; files: Record<string, string> };
    expect(folded).toBe(true);
    expect(files['messages/base.jsonl']).toBe('{"id":"m1"}\n{"id":"m2"}\n');
    expect(files['messages/events.jsonl']).toBe('');
  });
});
