/**
 * Runs the real `bin/goondan` in a subprocess, as a user would, and collects its output. Each run
 * is a fresh Bun process (seconds on a loaded 2-core machine): the per-test limit comes from
 * `bun test --timeout` in `npm test`.
 */
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dir, '..', '..');
export const GOONDAN_BIN = join(REPO_ROOT, 'bin', 'goondan');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  /** Added to a minimal environment (PATH and HOME only), so the machine's variables do not leak in. */
  env?: Record<string, string>;
}

export async function goondan(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  const proc = Bun.spawn([GOONDAN_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}
