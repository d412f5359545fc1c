/**
 * The built-in extensions as a user meets them: listed by ref in a bundle (with per-agent config),
 * `requiredTools` on the Agent, run by `goondan run --input` in a real subprocess. The config plane
 * attaches required-tools-guard by itself; its nudge reaches the scripted model, which then calls
 * the required tool; every listed extension loads from the `@goondan/base` package.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../shared/types/messages.ts';
import { readJsonl } from '../agent-process/helpers/engine-fixture.ts';
import { WAIT_MS } from '../helpers/wait-for.ts';
import { FIXTURES, REPO } from './helpers/extension-plans.ts';

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && 'id' in value && 'data' in value && 'metadata' in value && 'source' in value;
}

let stateRoot = '';
afterEach(() => {
  if (stateRoot !== '') rmSync(stateRoot, { recursive: true, force: true });
  stateRoot = '';
});

describe('goondan run with the built-in extensions', () => {
  test('a text-only answer is nudged by the implicit required-tools-guard; the required tool then runs', async () => {
    stateRoot = mkdtempSync(join(tmpdir(), 'goondan-base-ext-run-'));
    const proc = Bun.spawn([join(REPO, 'bin/goondan'), 'run', join(FIXTURES, 'assistant-bundle'), '--input', 'hello', '--state-root', stateRoot], {
      cwd: REPO,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, GOONDAN_LOG_LEVEL: 'warn' },
    });
    // A run that hangs is ended, and the exit-code check below fails.
    const timer = setTimeout(() => proc.kill(), WAIT_MS);
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    expect({ exitCode, stderr: exitCode === 0 ? '' : stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(stdout.trim()).toBe('waited as required');

    const [base] = Array.from(new Bun.Glob('workspaces/**/messages/base.jsonl').scanSync({ cwd: stateRoot })).map((path) => join(stateRoot, path));
    const messages = readJsonl(base ?? '').filter(isMessage);
    expect(messages.map((m) => m.data.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(messages[3]?.source).toEqual({ type: 'extension', extensionName: 'required-tools-guard' });
    expect(messages[3]?.metadata['requiredToolsGuard.nudge']).toEqual({ requiredTools: ['wait__seconds'], attempt: 1 });
  });
});
