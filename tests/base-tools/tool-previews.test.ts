/**
 * The approval previews of the built-in tools (issue 17, seed 004 §6.2 `preview`): file-system's
 * `evaluatePolicy` shows the diff a write or edit would make, bash's the commands a line would
 * run. Neither gives a verdict of its own (the permission policy decides). Real files, real parser.
 */
import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluatePolicy as bashPolicy } from '../../bundles/base/tools/bash/index.ts';
import { evaluatePolicy as fileSystemPolicy } from '../../bundles/base/tools/file-system/index.ts';
import type { JsonObject, ToolPolicyContext } from '../../shared/types/index.ts';
import { toolContexts } from './tool-context.ts';

const setup = toolContexts();

function policyContext(tool: string, exportName: string, workdir: string, config: JsonObject = {}): ToolPolicyContext {
  return { agentName: 'tester', instanceKey: 'k', toolName: `${tool}__${exportName}`, exportName, workdir, config };
}

describe('file-system: the diff of a write or edit', () => {
  test('overwriting a file shows a unified diff with context; there is no verdict', async () => {
    const { workdir } = setup();
    writeFileSync(join(workdir, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    const verdict = await fileSystemPolicy({ path: 'a.txt', content: 'one\n2\nthree\nfour\nfive\nsix\n' }, policyContext('file-system', 'write', workdir));
    expect(verdict).toEqual({ preview: '--- a.txt\n+++ a.txt\n@@ -1,5 +1,6 @@\n one\n-two\n+2\n three\n four\n five\n+six' });
  });

  test('a new file, an append and an edit', async () => {
    const { workdir } = setup();
    const write = (args: JsonObject) => fileSystemPolicy(args, policyContext('file-system', 'write', workdir));
    expect((await write({ path: 'notes/new.md', content: 'hello\n' }))?.preview).toBe('(new file)\n--- notes/new.md\n+++ notes/new.md\n@@ -1,0 +1,1 @@\n+hello');
    writeFileSync(join(workdir, 'log.txt'), 'first\n');
    expect((await write({ path: 'log.txt', content: 'second\n', append: true }))?.preview).toBe('--- log.txt\n+++ log.txt\n@@ -1,1 +1,2 @@\n first\n+second');
    const edit = await fileSystemPolicy({ path: 'log.txt', oldText: 'first', newText: 'FIRST' }, policyContext('file-system', 'edit', workdir));
    expect(edit?.preview).toBe('--- log.txt\n+++ log.txt\n@@ -1,1 +1,1 @@\n-first\n+FIRST');
  });

  test('a path the handler would refuse, or another export, gets no preview', async () => {
    const { workdir } = setup();
    expect(await fileSystemPolicy({ path: '../outside.txt', content: 'x' }, policyContext('file-system', 'write', workdir))).toBeUndefined();
    expect(await fileSystemPolicy({ path: 'a.txt' }, policyContext('file-system', 'read', workdir))).toBeUndefined();
  });
});

describe('bash: the commands a line would run', () => {
  test('every command, also inside sh -c, and the files it writes', async () => {
    const { workdir } = setup();
    const verdict = await bashPolicy({ command: "git status && sh -c 'rm -rf build' > out.txt" }, policyContext('bash', 'exec', workdir));
    expect(verdict?.action).toBeUndefined();
    expect(verdict?.preview).toBe(
      ["$ git status && sh -c 'rm -rf build' > out.txt", 'runs 3 command(s):', '  git status', '  rm -rf build   (inside sh -c)', '  sh -c rm -rf build', 'writes:', "  out.txt ('>' redirection)"].join('\n'),
    );
  });

  test('a script call is shown as the command line the policy judges, not as the script it claims to run', async () => {
    const { workdir } = setup();
    const verdict = await bashPolicy({ path: 'victim.txt', shell: '/bin/rm', args: ['-f'] }, policyContext('bash', 'script', workdir));
    expect(verdict?.preview).toStartWith(["$ '/bin/rm' 'victim.txt' '-f'", '(what the script victim.txt itself runs is not checked)', 'runs 1 command(s):', '  rm victim.txt -f'].join('\n'));
  });

  test('what is only known when the line runs is listed', async () => {
    const { workdir } = setup();
    const verdict = await bashPolicy({ command: 'x=rm; $x -rf ./*' }, policyContext('bash', 'exec', workdir));
    expect(verdict?.preview).toContain('only known when it runs:');
  });
});
