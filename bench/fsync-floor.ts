/**
 * The durability floor of a reply, for bench/daemon.ts: what one append + fsync costs on the state
 * root's filesystem in the same run (a reply under `fsync: batch` waits for at least one such
 * round, two processes' worth when the accept and the turn each sync), and a copy of a bundle with
 * another `Swarm.spec.policy.durability.fsync`, to measure the same path without the disk.
 */
import { closeSync, cpSync, fsyncSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { fullOrSmoke } from './smoke.ts';
import { median } from './stats.ts';

const ROUNDS = fullOrSmoke(40, 2);

/**
 * Median ms of one small append + fsync in `dir`, back to back or `gapMs` apart. Apart is what a
 * reply's sync finds (the disk idle since the last reply): ~0.4 ms here against ~0.15 back to back.
 */
export function fsyncFloorMs(dir: string, gapMs = 0): number {
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, 'fsync-floor.jsonl'), 'a');
  const rounds: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      if (gapMs > 0) Bun.sleepSync(gapMs);
      const t0 = performance.now();
      writeSync(fd, `${JSON.stringify({ i, pad: 'x'.repeat(200) })}\n`);
      fsyncSync(fd);
      rounds.push(performance.now() - t0);
    }
  } finally {
    closeSync(fd);
  }
  return median(rounds);
}

/** `bundle` copied to `dir` with its Swarm's durability set to `fsync`; returns the copy's path. */
export function bundleWithFsync(bundle: string, dir: string, fsync: 'always' | 'batch' | 'never'): string {
  cpSync(bundle, dir, { recursive: true });
  const file = join(dir, 'goondan.yaml');
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  const swarm = docs.find((doc) => doc.get('kind') === 'Swarm');
  if (!swarm) throw new Error(`${file} has no Swarm`);
  swarm.setIn(['spec', 'policy', 'durability', 'fsync'], fsync);
  writeFileSync(file, docs.map((doc) => doc.toString()).join(''));
  return dir;
}
