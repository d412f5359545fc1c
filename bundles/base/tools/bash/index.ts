/**
 * `bash__exec` and `bash__script`: run a command in the agent's workspace (tool spec §2.5) and
 * return what happened. A non-zero exit is a normal result the model reads, not an error; errors
 * are reserved for calls that could not run (bad arguments, cwd outside the workspace, no shell).
 * `evaluatePolicy` previews the commands of a line for the person asked to approve it.
 */
import { statSync } from 'node:fs';
import type { JsonObject, ToolContext, ToolHandler, ToolPolicyEvaluator } from '../../../../shared/types/index.ts';
import { abortedError, BaseToolError } from '../tool-error.ts';
import { argsReader } from '../tool-input.ts';
import { resolveWorkspacePath, type PathPolicy, type ResolvedPath } from '../workspace-path.ts';
import { bashPathPolicy, readBashConfig, type BashConfig } from './bash-config.ts';
import { buildCommandEnv } from './command-env.ts';
import { commandPreview } from './command-preview.ts';
import { runProcess, type RunResult } from './run-process.ts';

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

function commandEnv(config: BashConfig, callEnv: Record<string, string> | undefined): Record<string, string> {
  return buildCommandEnv({ parent: process.env, inheritEnv: config.inheritEnv ?? [], configEnv: config.env ?? {}, callEnv: callEnv ?? {} });
}

async function run(ctx: ToolContext, config: BashConfig, argv: string[], cwd: ResolvedPath, env: Record<string, string>, requestedTimeoutMs: number | undefined): Promise<JsonObject> {
  if (ctx.signal?.aborted) throw abortedError('The command');
  const timeoutMs = requestedTimeoutMs ?? config.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const result = await runProcess({
    argv,
    cwd: cwd.absolute,
    env,
    timeoutMs,
    maxOutputBytes: config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    killGraceMs: config.killGraceMs ?? 2000,
    drainMs: config.drainMs ?? 500,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (result.aborted) throw abortedError('The command');
  ctx.logger.debug({ argv0: argv[0], exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut, durationMs: result.durationMs }, 'bash command finished');
  return toOutput(result, cwd.display, timeoutMs);
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
  if (result.timedOut) output.note = `Killed after ${timeoutMs} ms (the whole process group). Raise timeoutMs or run long jobs in the background with output to a file.`;
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
    const env = commandEnv(config, args.env);
    return run(ctx, config, ['/bin/sh', '-lc', `${keepPath(env.PATH)}${args.command}`], cwd, env, args.timeoutMs);
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
    const argv = [args.shell ?? '/bin/bash', script.absolute, ...(args.args ?? [])];
    return run(ctx, config, argv, cwd, commandEnv(config, args.env), args.timeoutMs);
  },
};

/** seed 004 §6.2: the commands a line would run, for the approval prompt (no verdict of its own). */
export const evaluatePolicy: ToolPolicyEvaluator = commandPreview;
