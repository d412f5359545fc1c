/** GOONDAN_LOG_LEVEL that pino does not know: a usage error (exit 2) naming the variable and the levels, before anything starts. */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, goondan } from './goondan-cli.ts';

let temp: string | undefined;
afterEach(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

describe('goondan run checks GOONDAN_LOG_LEVEL first', () => {
  for (const level of ['bogus', '']) {
    test(`'${level}': exit 2, the variable and the allowed levels named, no stack, nothing started`, async () => {
      temp = mkdtempSync(join(tmpdir(), 'goondan-log-level-'));
      const stateRoot = join(temp, 'state');
      const run = await goondan(['run', join(REPO_ROOT, 'bundles/demo'), '--port', '0', '--state-root', stateRoot, '--input', 'hi'], { env: { GOONDAN_LOG_LEVEL: level } });
      expect(run.code).toBe(2);
      expect(run.stderr).toStartWith(`goondan run: GOONDAN_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent; got '${level}'\n`);
      expect(run.stderr).toContain('Usage: goondan run');
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stdout).toBe('');
      expect(existsSync(stateRoot)).toBe(false);
    });
  }

  test('a known level runs as before', async () => {
    temp = mkdtempSync(join(tmpdir(), 'goondan-log-level-'));
    const run = await goondan(['run', join(REPO_ROOT, 'bundles/demo'), '--port', '0', '--state-root', join(temp, 'state'), '--input', 'hello'], { env: { GOONDAN_LOG_LEVEL: 'warn' } });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toBe('');
  });
});
