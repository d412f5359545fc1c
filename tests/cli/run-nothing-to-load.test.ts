/** `goondan run` on a PATH with nothing to load: exit 3 like `validate`, and nothing is started. */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goondan } from './goondan-cli.ts';


let temp: string | undefined;
afterEach(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

describe('goondan run exits 3 when there is nothing to load at PATH', () => {
  test('a path that does not exist: "nothing to load at PATH", no daemon log lines, no state written', async () => {
    temp = mkdtempSync(join(tmpdir(), 'goondan-run-'));
    const missing = join(temp, 'no-such-bundle');
    const stateRoot = join(temp, 'state');
    const run = await goondan(['run', missing, '--port', '0', '--state-root', stateRoot]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`nothing to load at ${missing} (no such file or directory)`);
    expect(run.stderr).toContain('hint: pass a bundle directory');
    // Nothing started, so nothing shuts down: no "shutting down" / "orchestrator stopped" lines.
    expect(run.stdout).toBe('');
    expect(existsSync(stateRoot)).toBe(false);
  });

  test('a directory without bundle files, also with --input (one-shot)', async () => {
    temp = mkdtempSync(join(tmpdir(), 'goondan-run-'));
    const stateRoot = join(temp, 'state');
    const run = await goondan(['run', temp, '--port', '0', '--state-root', stateRoot, '--input', 'hello']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`nothing to load at ${temp} (no goondan.yaml or resource YAML files`);
    expect(run.stdout).toBe('');
    expect(existsSync(stateRoot)).toBe(false);
  });
});
