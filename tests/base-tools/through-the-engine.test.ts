/**
 * The built-in tools as a model meets them: `goondan run --input` on a fixture bundle whose mock
 * model calls file-system and bash. Checks that the engine loads the entry modules, that thrown
 * tool errors arrive as structured ToolResults (code + suggestion), and that the workspace is the
 * tools' working directory.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAIT_MS } from '../helpers/wait-for.ts';

const REPO = join(import.meta.dir, '../..');
const BUNDLE = join(REPO, 'tests/fixtures/base-tools/coder-bundle');

let stateRoot = '';
afterEach(() => {
  if (stateRoot !== '') rmSync(stateRoot, { recursive: true, force: true });
  stateRoot = '';
});

function findFiles(root: string, pattern: string): string[] {
  return Array.from(new Bun.Glob(pattern).scanSync({ cwd: root, dot: true })).map((path) => join(root, path));
}

describe('base tools run through the real engine', () => {
  test('write, a refused escape and a shell command reach the model as ToolResults', async () => {
    stateRoot = mkdtempSync(join(tmpdir(), 'goondan-base-tools-e2e-'));
    const proc = Bun.spawn([join(REPO, 'bin/goondan'), 'run', BUNDLE, '--input', 'write a note', '--state-root', stateRoot], {
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
    // bash ran in the workspace: it read the file file-system wrote there; exit 4 is a normal result.
    expect(stdout).toContain('Agent saw: hi from the agent (exit 4)');

    const [note] = findFiles(stateRoot, 'workspaces/**/workspace/notes/hello.txt');
    expect(note).toBeDefined();
    expect(readFileSync(note ?? '', 'utf8')).toBe('hi from the agent');

    const history = findFiles(stateRoot, 'workspaces/**/messages/base.jsonl').map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(history).toContain('"code":"E_FS_OUTSIDE_WORKDIR"');
    expect(history).toContain('add it to the tool config \\"roots\\"');
    expect(findFiles(stateRoot, 'workspaces/**/escape.txt')).toEqual([]);
    // It starts a whole daemon: on a loaded machine that takes longer than bun's default 5 s.
  }, 60_000);
});
