/**
 * Issue 9's bypass table: every spelling, wrapper and container of `rm` gets past neither a
 * `deny: rm *` rule (default allow, the hardest case) nor an `allow: git *` list (default deny),
 * each with the exact verdict stated in policy-bypass-cases.ts; and ordinary lines stay allowed.
 */
import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from '../../bundles/base/extensions/tool-policy/index.ts';
import { type Policy, evaluate, scriptCommandLine } from '../../bundles/base/extensions/tool-policy/policy-rules.ts';
import { ShellAnalyzer } from '../../bundles/base/extensions/tool-policy/shell-analysis.ts';
import { loadShellParser } from '../../bundles/base/extensions/tool-policy/shell-parser.ts';
import { handlers as bashHandlers } from '../../bundles/base/tools/bash/index.ts';
import type { ExtensionApi, JsonObject, ToolCallMiddleware, ToolCallMiddlewareContext, ToolPolicyAction, ToolResult } from '../../shared/types/index.ts';
import { type TestToolContext, createToolContext } from '../base-tools/tool-context.ts';
import {
  COMMAND_RUNNERS_STILL_ALLOWED,
  COMMAND_RUNNER_BYPASSES,
  type Case,
  GIT_BYPASSES,
  GIT_POLICY_STILL_ALLOWS,
  NAMED_RM_BYPASSES,
  RM_POLICY_STILL_ALLOWS,
  SSH_BYPASSES,
  SSH_POLICY_STILL_ALLOWS,
  rmBypassCases,
} from './policy-bypass-cases.ts';

const DENY_RM: Policy = { default: 'allow', rules: [{ tool: 'bash__exec', args: { command: 'rm *' }, action: 'deny', source: 'swarm' }] };
const GIT_LIST: Policy = {
  default: 'deny',
  rules: ['git *', 'ls *', 'head *', 'wc *', 'grep *', 'cd *'].map((command) => ({ tool: 'bash__exec', args: { command }, action: 'allow' as const })),
};
const SSH_LIST: Policy = {
  default: 'deny',
  rules: [
    ...['ssh *', 'scp *', 'sftp *', 'ssh-keygen *', 'sshfs backup:* *', 'sshfs * backup:* *', 'mosh *', 'rsync * backup:*'].map((command) => ({ tool: 'bash__exec', args: { command }, action: 'allow' as const })),
    { tool: 'bash__exec', args: { command: 'rm *' }, action: 'deny' },
  ],
};

let shell: ShellAnalyzer;
beforeAll(async () => {
  shell = new ShellAnalyzer(await loadShellParser());
});

/** The probe's policy: one deny rule for every bash export. */
const DENY_RM_ALL_BASH: Policy = { default: 'allow', rules: [{ tool: 'bash__*', args: { command: 'rm *' }, action: 'deny', source: 'swarm' }] };

/** Every case whose verdict differs from the expected one, with the verdict's explanation. */
function mismatches(policy: Policy, cases: readonly Case[]): string[] {
  return cases.flatMap(([line, expected]) => {
    const verdict = evaluate(policy, 'bash__exec', { command: line }, false, shell);
    return verdict.action === expected ? [] : [`${JSON.stringify(line)}: expected ${expected}, got ${verdict.action} (${verdict.explanation})`];
  });
}

/** Mismatches where a line that must not run was allowed. */
const bypasses = (results: string[]) => results.filter((r) => r.includes(', got allow (')).length;
const allowed = (lines: readonly string[]): Case[] => lines.map((line): Case => [line, 'allow' satisfies ToolPolicyAction]);

describe('deny: rm * (default allow)', () => {
  test('the bypasses named in the issue are denied, or ask when the program is only known at run time', () => {
    expect(mismatches(DENY_RM, NAMED_RM_BYPASSES)).toEqual([]);
  });

  test('generated variants (spellings × wrappers, containers, whitespace, separators, run-time forms, delete forms): 0 bypasses', () => {
    const cases = [...NAMED_RM_BYPASSES, ...rmBypassCases()];
    const results = mismatches(DENY_RM, cases);
    console.log(`policy bypass table, deny: rm *: ${cases.length} cases, ${bypasses(results)} bypasses, ${results.length} verdicts off the table`);
    expect(cases.length).toBeGreaterThan(NAMED_RM_BYPASSES.length + 50);
    expect(results).toEqual([]);
  });

  test('ordinary lines stay allowed', () => {
    expect(mismatches(DENY_RM, allowed(RM_POLICY_STILL_ALLOWS))).toEqual([]);
  });

  test('programs that run a command from an argument or option (split --filter, tar, setarch, setpriv, rsync -e, zip -TT, man -P, ed…): 0 bypasses', () => {
    const results = mismatches(DENY_RM, COMMAND_RUNNER_BYPASSES);
    console.log(`policy bypass table, command runners: ${COMMAND_RUNNER_BYPASSES.length} cases, ${bypasses(results)} bypasses, ${results.length} verdicts off the table`);
    expect(results).toEqual([]);
  });

  test('those programs stay allowed when they run nothing else', () => {
    expect(mismatches(DENY_RM, allowed(COMMAND_RUNNERS_STILL_ALLOWED))).toEqual([]);
  });
});

describe('bash__script is judged as the command line it runs: [shell, path, ...args]', () => {
  const script = (args: JsonObject, policy: Policy = DENY_RM_ALL_BASH) => evaluate(policy, 'bash__script', args, false, shell);

  test('a shell that is not an interpreter is that program: /bin/rm as the shell is denied like rm', () => {
    expect(scriptCommandLine({ path: 'victim.txt', shell: '/bin/rm', args: ['-f'] })).toBe(`'/bin/rm' 'victim.txt' '-f'`);
    expect(script({ path: 'victim.txt', shell: '/bin/rm', args: ['-f'] })).toMatchObject({ action: 'deny', explanation: expect.stringContaining("'rm victim.txt -f' matches swarm rule #1") });
    expect(script({ path: 'victim.txt', shell: 'rm' }).action).toBe('deny');
    expect(script({ path: 'x.sh', shell: 'env', args: ['A=1'] }).action).toBe('allow');
    expect(script({ path: 'x.sh', shell: 'find', args: ['-delete'] }).action).toBe('deny');
    expect(script({ path: 'victim.txt', shell: 'unlink' }).action).toBe('deny');
    expect(script({ path: 'in.txt', shell: 'split', args: ['--filter=rm -f v1'] }).action).toBe('deny');
    expect(script({ path: 'x.sh', shell: 'python3', args: ['-c', "import os; os.remove('v')"] }).action).toBe('allow');
  });

  test('arguments are words, not shell code: quotes, $ and ; in them run nothing', () => {
    expect(scriptCommandLine({ path: "it's.sh", args: ['a; rm -rf ~', '$(rm x)', "b'c"] })).toBe(String.raw`'/bin/bash' 'it'\''s.sh' 'a; rm -rf ~' '$(rm x)' 'b'\''c'`);
    expect(script({ path: 'x.sh', args: ['a; rm -rf ~', '$(rm x)', '`rm y`'] }).action).toBe('allow');
  });

  test('interpreters run the script as documented: /bin/bash by default, sh, python3, node', () => {
    const calls: JsonObject[] = [{ path: 'build.sh' }, { path: 'build.sh', shell: '/bin/sh', args: ['-x'] }, { path: 'gen.py', shell: 'python3', args: ['--out', 'x'] }, { path: 'a.js', shell: 'node' }, { path: '-c', args: ['rm x'] }];
    for (const args of calls) {
      expect(script(args).action).toBe('allow');
    }
  });

  test('allow lists and the call env apply to it like to bash__exec', () => {
    const allowBash: Policy = { default: 'deny', rules: [{ tool: 'bash__*', args: { command: '/bin/bash *' }, action: 'allow' }] };
    expect(script({ path: 'build.sh' }, allowBash).action).toBe('allow');
    expect(script({ path: 'victim.txt', shell: '/bin/rm' }, allowBash).action).toBe('deny');
    expect(script({ path: 'build.sh', env: { LD_PRELOAD: '/tmp/x.so' } }).action).toBe('ask');
    // A rule without a command pattern judges the call by its arguments, as before.
    expect(evaluate({ default: 'deny', rules: [{ tool: 'bash__script', args: { path: 'scripts/*' }, action: 'allow' }] }, 'bash__script', { path: 'scripts/a.sh' }, false, shell).action).toBe('allow');
  });
});

describe('the tool-policy middleware in front of the bash tool', () => {
  let workspace: TestToolContext | undefined;
  afterEach(() => {
    workspace?.cleanup();
    workspace = undefined;
  });

  /** The policy's toolCall middleware, as the engine registers it. */
  function policyMiddleware(policy: JsonObject): ToolCallMiddleware {
    let middleware: ToolCallMiddleware | undefined;
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const api = { name: 'tool-policy', logger: quiet, pipeline: { register: (_type: string, fn: ToolCallMiddleware) => (middleware = fn) } } as unknown as ExtensionApi;
    register(api, policy);
    if (!middleware) throw new Error('tool-policy registered no toolCall middleware');
    return middleware;
  }

  /** Calls bash__<exportName> through the middleware; the handler is the real bash tool. */
  async function callThroughPolicy(policy: JsonObject, exportName: 'exec' | 'script', args: JsonObject): Promise<{ result: ToolResult; ran: boolean }> {
    const t = workspace ?? createToolContext({ sandbox: { mode: 'none' } });
    workspace = t;
    let ran = false;
    const ctx = {
      toolName: `bash__${exportName}`,
      toolCallId: 'call-1',
      stepIndex: 0,
      args,
      display: {},
      metadata: {},
      toolVerdict: async () => undefined,
      next: async (): Promise<ToolResult> => {
        ran = true;
        const output = await bashHandlers[exportName]?.(t.ctx, args);
        return { toolCallId: 'call-1', toolName: `bash__${exportName}`, status: 'ok', output: output ?? null };
      },
    } as unknown as ToolCallMiddlewareContext;
    return { result: await policyMiddleware(policy)(ctx), ran };
  }

  test('bash__script with /bin/rm as its shell is denied by deny rm * and the file stays', async () => {
    const policy = { default: 'allow', rules: [{ tool: 'bash__*', args: { command: 'rm *' }, action: 'deny' }] };
    workspace = createToolContext({ sandbox: { mode: 'none' } });
    const victim = join(workspace.workdir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const exec = await callThroughPolicy(policy, 'exec', { command: 'rm victim.txt' });
    expect(exec.result.error?.code).toBe('E_TOOL_DENIED');
    const script = await callThroughPolicy(policy, 'script', { path: 'victim.txt', shell: '/bin/rm', args: ['-f'] });
    expect(script.ran).toBe(false);
    expect(script.result.status).toBe('error');
    expect(script.result.error).toMatchObject({ code: 'E_TOOL_DENIED', message: expect.stringContaining("'rm victim.txt -f' matches rule #1") });
    expect(existsSync(victim)).toBe(true);
  });

  test('a script run by bash is still allowed and runs', async () => {
    workspace = createToolContext({ sandbox: { mode: 'none' } });
    writeFileSync(join(workspace.workdir, 'hello.sh'), 'echo "hello $1"\n');
    const { result, ran } = await callThroughPolicy({ default: 'allow', rules: [{ tool: 'bash__*', args: { command: 'rm *' }, action: 'deny' }] }, 'script', { path: 'hello.sh', args: ['you'] });
    expect(ran).toBe(true);
    expect(result.output).toMatchObject({ stdout: 'hello you\n', exitCode: 0 });
  });
});

describe('allow: git * (default deny)', () => {
  test('git variants that run other code or write outside the workspace are not allowed: 0 bypasses', () => {
    const results = mismatches(GIT_LIST, GIT_BYPASSES);
    console.log(`policy bypass table, allow: git *: ${GIT_BYPASSES.length} cases, ${bypasses(results)} bypasses, ${results.length} verdicts off the table`);
    expect(results).toEqual([]);
  });

  test('ordinary git lines stay allowed, piped and chained with allowed commands', () => {
    expect(mismatches(GIT_LIST, allowed(GIT_POLICY_STILL_ALLOWS))).toEqual([]);
  });
});

describe('allow: ssh *, scp *, sftp *, sshfs [*] backup:* *, mosh *, rsync * backup:* (default deny)', () => {
  test('what ssh runs on this machine is judged, and a copy to another machine needs the remote spelled: 0 bypasses', () => {
    const results = mismatches(SSH_LIST, SSH_BYPASSES);
    console.log(`policy bypass table, allow: ssh *: ${SSH_BYPASSES.length} cases, ${bypasses(results)} bypasses, ${results.length} verdicts off the table`);
    expect(results).toEqual([]);
  });

  test('ordinary ssh lines stay allowed', () => {
    expect(mismatches(SSH_LIST, allowed(SSH_POLICY_STILL_ALLOWS))).toEqual([]);
  });
});
