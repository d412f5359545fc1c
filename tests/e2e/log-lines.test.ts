/**
 * Log lines are JSON with each key once (issue 11): the daemon's and its agents' lines, written to
 * the one-shot log file, never repeat a top-level key (JSON.parse would hide the first value).
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { duplicateTopLevelKeys } from '../helpers/json-duplicate-keys.ts';
import { GOONDAN_BIN, REPO_ROOT, tempStateRoot } from './daemon-harness.ts';


describe('log lines', () => {
  test('no line of a daemon and its agents carries the same key twice', async () => {
    const stateRoot = tempStateRoot();
    try {
      // The logging extension writes through the engine's logger, the agent shell through its own.
      const proc = Bun.spawn([GOONDAN_BIN, 'run', join(REPO_ROOT, 'tests/fixtures/e2e/seams'), '-s', 'logged', '--input', 'hello', '--state-root', stateRoot], {
        stdout: 'pipe',
        stderr: 'pipe',
        env: { ...process.env, GOONDAN_LOG_LEVEL: 'debug' },
      });
      expect(await proc.exited).toBe(0);
      const lines = readFileSync(join(stateRoot, 'runtime', 'logs', 'goondan.log'), 'utf8').split('\n').filter((l) => l.trim() !== '');
      const agentLines = lines.filter((l) => l.includes('"name":"agent"'));
      expect(agentLines.some((l) => l.includes('"extension":"logging"'))).toBe(true);
      expect(agentLines.every((l) => l.includes(`"agent":`) && l.includes(`"instanceKey":`))).toBe(true);
      const offenders = lines.map((line) => ({ line: line.slice(0, 200), duplicates: duplicateTopLevelKeys(line) })).filter((l) => l.duplicates.length > 0);
      expect(offenders).toEqual([]);
      expect(duplicateTopLevelKeys('{"a":1,"b":{"a":2},"a":3}')).toEqual(['a']);
    } finally {
      rmSync(stateRoot, { recursive: true, force: true });
    }
  });
});
