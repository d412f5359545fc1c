/**
 * The e2e swarm fixture's `probe__hold <gate>` tool: a turn that must be "running" while a test
 * acts sits in it until the test releases its gate, so nothing depends on how fast the machine is.
 * Gates are files in a directory of the test file's own, removed after its tests.
 */
import { afterAll } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface HoldGates {
  /** The path to put in `hold <path>`. */
  path(name: string): string;
  /**
   * The pids that entered the probe's hold on this gate, in order, from complete lines only: the
   * probe's append creates the file before it writes, and an empty file read as one line was pid 0
   * — a test then went on as if the agent were held before it was (seen once under load).
   */
  heldPids(gate: string): number[];
  /** Lets every turn held on this gate go on. */
  release(gate: string): void;
}

/** Call at a test file's top level (it registers the directory's removal). */
export function holdGates(): HoldGates {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-gates-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    path: (name) => join(dir, name),
    heldPids: (gate) => (existsSync(`${gate}.held`) ? readFileSync(`${gate}.held`, 'utf8').split('\n').slice(0, -1).map(Number) : []),
    release: (gate) => writeFileSync(gate, ''),
  };
}
