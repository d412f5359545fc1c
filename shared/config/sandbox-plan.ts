/**
 * Resolves the sandbox of an agent and of each of its tools (issue 9): defaults, then the swarm's
 * `policy.sandbox`, the agent's `spec.sandbox`, and a tool ref's `config.sandbox`, each laid over
 * the one before field by field (`limits` key by key; `readOnlyPaths` of every level are joined).
 */
import type { SandboxLimits, SandboxPlan, SandboxSpec } from '../types/sandbox.ts';

/** Generous enough for compilers and test runners, low enough that one runaway call cannot take the host. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = { cpuSeconds: 300, memoryMb: 4096, processes: 512, fileSizeMb: 1024 };

export const DEFAULT_SANDBOX: Readonly<SandboxPlan> = { mode: 'bwrap', network: false, limits: DEFAULT_SANDBOX_LIMITS, readOnlyPaths: [] };

export function resolveSandbox(base: SandboxPlan, ...overrides: Array<SandboxSpec | undefined>): SandboxPlan {
  let plan: SandboxPlan = { ...base, limits: { ...base.limits }, readOnlyPaths: [...base.readOnlyPaths] };
  for (const spec of overrides) {
    if (spec === undefined) continue;
    plan = {
      mode: spec.mode ?? plan.mode,
      network: spec.network ?? plan.network,
      limits: { ...plan.limits, ...spec.limits },
      readOnlyPaths: [...new Set([...plan.readOnlyPaths, ...(spec.readOnlyPaths ?? [])])],
    };
  }
  return plan;
}
