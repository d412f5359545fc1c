/**
 * JavaScriptCore settings for agent processes, which run most of their code a few times per turn
 * and then sit idle. Measured on the mock model and this repo's e2e swarm, 2-core machine:
 * - JIT threshold: at JSC's defaults (baseline JIT after ~500 executions, on worker threads) every
 *   process compiled what it would not run long enough to pay back: +3.5 MB RSS per instance after
 *   one turn, two more threads, and first turns of 0.8–1.7 ms instead of 0.4–0.7 ms (the compiler
 *   threads took the CPU the turn needed); a busy instance was no faster at the defaults over 1,000
 *   turns. Hot code — a loop, a parser, a busy instance — still compiles after AGENT_JIT_THRESHOLD.
 * - No GC block warm-up thread (`useWarmUpMarkedBlocks`): it faults in heap blocks ahead of the
 *   allocator, which an idle instance never uses: −0.6 to −0.8 MB RSS and one thread less.
 *
 * These are Bun's `BUN_JSC_*` variables, not a stable API: a Bun that does not know one refuses to
 * start. So they are passed to agents only after this Bun accepted them (checked once per Bun
 * version with a bare `bun -e 0`, remembered in the build cache). A value the user set in the
 * daemon's environment wins; GOONDAN_AGENT_ENGINE=default keeps Bun's own settings.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_CACHE_DIR } from '../../shared/package-root.ts';

/** Executions before a function (or a loop) is compiled by the baseline JIT: JSC's default is 500 (soon: 100). */
export const AGENT_JIT_THRESHOLD = 5000;

export const AGENT_ENGINE_ENV: Readonly<Record<string, string>> = {
  BUN_JSC_thresholdForJITAfterWarmUp: String(AGENT_JIT_THRESHOLD),
  BUN_JSC_thresholdForJITSoon: String(AGENT_JIT_THRESHOLD),
  BUN_JSC_useWarmUpMarkedBlocks: 'false',
};

let current: Readonly<Record<string, string>> = {};

/** The engine variables agent processes start with (none until prepareAgentEngineOptions ran). */
export function agentEngineEnv(): Readonly<Record<string, string>> {
  return current;
}

/** Whether this Bun starts with these variables set (it exits with an error on an unknown one). */
export function bunAccepts(env: Readonly<Record<string, string>>): boolean {
  const result = Bun.spawnSync([process.execPath, '-e', '0'], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'ignore', stderr: 'pipe' });
  return result.exitCode === 0 && result.stderr.length === 0;
}

/** How prepareAgentEngineOptions checks the options; tests replace it. */
export interface EngineOptionsCheck {
  accepts(env: Readonly<Record<string, string>>): boolean;
  /** Where a Bun version that accepted them is remembered. */
  cacheDir: string;
}

const REAL_CHECK: EngineOptionsCheck = { accepts: bunAccepts, cacheDir: BUILD_CACHE_DIR };

/** Decides the agents' engine variables for this daemon; logs why when Bun's defaults stay. */
export function prepareAgentEngineOptions(env: Record<string, string | undefined>, log: { warn(obj: object, msg: string): void }, check: EngineOptionsCheck = REAL_CHECK): void {
  current = {};
  if (env.GOONDAN_AGENT_ENGINE === 'default') return;
  const marker = join(check.cacheDir, `jsc-options-${Bun.version}-${Bun.hash(JSON.stringify(AGENT_ENGINE_ENV)).toString(16)}.ok`);
  if (!existsSync(marker)) {
    if (!check.accepts(AGENT_ENGINE_ENV)) {
      log.warn({ bun: Bun.version, options: Object.keys(AGENT_ENGINE_ENV) }, 'this Bun does not accept the agents’ engine options; agents run with its defaults');
      return;
    }
    try {
      mkdirSync(check.cacheDir, { recursive: true });
      writeFileSync(marker, '');
    } catch {
      // A read-only install checks again next time (~10 ms).
    }
  }
  current = AGENT_ENGINE_ENV;
}
