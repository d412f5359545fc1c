/**
 * `bash__exec` and `bash__script`: run a command in the agent's workspace (tool spec §2.5) and
 * return what happened. A non-zero exit is a normal result the model reads, not an error; errors
 * are reserved for calls that could not run (bad arguments, cwd outside the workspace, no shell,
 * a required sandbox that cannot be set up). Commands run in `ctx.sandbox` (issue 9): inside
 * bubblewrap, the workspace (plus `config.roots`) is all they can write and see of the host's data.
 * `evaluatePolicy` previews the commands of a line for the person asked to approve it.
 */
import { statSync } from 'node:fs';
import type { JsonObject, ToolContext, ToolHandler, ToolPolicyEvaluator } from '../../../../shared/types/index.ts';
import { abortedError, BaseToolError } from '../tool-error.ts';
import { argsReader } from '../tool-input.ts';
import { resolveWorkspacePath, type PathPolicy, type ResolvedPath } from '../workspace-path.ts';
import { prepareLaunch } from '../../sandbox/sandbox-launch.ts';
import { bashPathPolicy, readBashConfig, type BashConfig } from './bash-config.ts';
import { buildCommandEnv } from './command-env.ts';
import { commandPreview } from './command-preview.ts';
import { assertRunnable, runProcess, type RunResult } from './run-process.ts';

interface ExecArgs {
  command: string;
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}

interface ScriptArgs {
  path: string;
  args?: string[];
  shell?: string;
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}

const readExecArgs = argsReader<ExecArgs>(import.meta.dir, 'exec');
const readScriptArgs = argsReader<ScriptArgs>(import.meta.dir, 'script');

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT_BYTES = 100_000;

function resolveCwd(policy: PathPolicy, cwd: string | undefined): ResolvedPath {
  const resolved = resolveWorkspacePath(policy, cwd ?? '.', 'cwd');
  const stat = statSync(resolved.absolute, { throwIfNoEntry: false });
  if (stat?.isDirectory() !== true) {
    throw new BaseToolError('E_BASH_CWD', `The working directory "${cwd ?? '.'}" ${stat ? 'is not a directory' : 'does not exist'}.`, {
      suggestion: 'Create it first (file-system__mkdir) or omit cwd to run in the workspace.',
    });
  }
  return resolved;
}

interface Command {
  /** The command line, given the environment it will run with. */
  argv(env: Record<string, string>): string[];
  cwd: ResolvedPath;
  callEnv: Record<string, string> | undefined;
  timeoutMs: number | undefined;
  /** A script outside the workspace (allowed by config) that the sandbox must show. */
  scriptOutside?: string;
}

async function run(ctx: ToolContext, config: BashConfig, command: Command): Promise<JsonObject> {
  if (ctx.signal?.aborted) throw abortedError('The command');
  const launch = prepareLaunch({
    sandbox: ctx.sandbox,
    cwd: command.cwd.absolute,
    logger: ctx.logger,
    // Directories the config lets commands use are writable inside the sandbox too.
    writablePaths: [...(config.roots ?? []), ...(isInside(ctx.workdir, command.cwd.absolute) ? [] : [command.cwd.absolute])],
    ...(command.scriptOutside !== undefined ? { readOnlyPaths: [command.scriptOutside] } : {}),
  });
  const env = buildCommandEnv({
    parent: process.env,
    inheritEnv: config.inheritEnv ?? [],
    configEnv: config.env ?? {},
    callEnv: command.callEnv ?? {},
    ...(launch.sandboxed ? { sandboxHome: ctx.workdir } : {}),
  });
  const timeoutMs = command.timeoutMs ?? config.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const argv = command.argv(env);
  assertRunnable(argv[0], command.cwd.absolute, env.PATH);
  const launched = launch.wrap(argv, env);
  const result = await runProcess({
    argv: launched.argv,
    cwd: command.cwd.absolute,
    env: launched.env,
    timeoutMs,
    maxOutputBytes: config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    killGraceMs: config.killGraceMs ?? 2000,
    drainMs: config.drainMs ?? 500,
    sandboxed: launch.sandboxed,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (result.aborted) throw abortedError('The command');
  ctx.logger.debug(
    { exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut, durationMs: result.durationMs, sandboxed: launch.sandboxed },
    'bash command finished',
  );
  return toOutput(result, command.cwd.display, timeoutMs);
}

function isInside(dir: string, path: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

function toOutput(result: RunResult, cwd: string, timeoutMs: number): JsonObject {
  const output: JsonObject = {
    stdout: result.stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    truncated: result.truncated,
    durationMs: result.durationMs,
    cwd,
  };
  if (result.truncated) {
    output.stdoutBytes = result.stdoutBytes;
    output.stderrBytes = result.stderrBytes;
  }
  if (result.timedOut) output.note = `Killed after ${timeoutMs} ms (with every process it started). Raise timeoutMs (up to 600000) for long jobs.`;
  return output;
}

/**
 * A login shell (`-l`, SPEC.md §5.3) runs /etc/profile, which on Debian overwrites PATH. Put the
 * command's PATH back in front (profile additions stay behind it); same line, so line numbers in
 * the shell's error messages still match the command.
 */
function keepPath(path: string | undefined): string {
  if (path === undefined || path === '') return '';
  return `PATH=${shellQuote(path)}\${PATH:+":$PATH"}; export PATH; `;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export const handlers: Record<string, ToolHandler> = {
  exec: async (ctx, input) => {
    const args = readExecArgs(input);
    const config = readBashConfig(ctx.config);
    const cwd = resolveCwd(bashPathPolicy(ctx.workdir, config), args.cwd);
    return run(ctx, config, {
      argv: (env) => ['/bin/sh', '-lc', `${keepPath(env.PATH)}${args.command}`],
      cwd,
      callEnv: args.env,
      timeoutMs: args.timeoutMs,
    });
  },

  script: async (ctx, input) => {
    const args = readScriptArgs(input);
    const config = readBashConfig(ctx.config);
    const policy = bashPathPolicy(ctx.workdir, config);
    const script = resolveWorkspacePath(policy, args.path);
    const stat = statSync(script.absolute, { throwIfNoEntry: false });
    if (stat?.isFile() !== true) {
      throw new BaseToolError('E_BASH_SCRIPT_NOT_FOUND', `The script "${args.path}" ${stat ? 'is not a regular file' : 'does not exist'} (resolved to ${script.display}).`, {
        suggestion: 'Write it first with file-system__write, or check the path with file-system__list.',
      });
    }
    const cwd = resolveCwd(policy, args.cwd);
    const outside = !isInside(ctx.workdir, script.absolute) && !(config.roots ?? []).some((root) => isInside(root, script.absolute));
    return run(ctx, config, {
      argv: () => [args.shell ?? '/bin/bash', script.absolute, ...(args.args ?? [])],
      cwd,
      callEnv: args.env,
      timeoutMs: args.timeoutMs,
      ...(outside ? { scriptOutside: script.absolute } : {}),
    });
  },
};

/** seed 004 §6.2: the commands a line would run, for the approval prompt (no verdict of its own). */
export const evaluatePolicy: ToolPolicyEvaluator = commandPreview;
