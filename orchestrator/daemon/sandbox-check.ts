/**
 * At `goondan run` start (and on every `--watch` reload) the daemon finds out once whether the
 * agents' sandbox can work on this host (issue 9): an agent with sandbox mode `required` and no
 * working bubblewrap stops the start (E_SANDBOX_UNAVAILABLE, exit 1); mode `bwrap` without it is
 * one warning, and the agents' tools then run unsandboxed (each agent process logs it once too).
 */
import { bwrapAvailability, INSTALL_BWRAP, unsandboxedWarning } from '../../bundles/base/sandbox/bwrap-availability.ts';
import type { SandboxMode } from '../../shared/types/sandbox.ts';
import type { SwarmConfig } from './swarm-config.ts';

// A registered symbol survives module duplication (two copies of this file loaded from two paths).
const MARKER = Symbol.for('goondan.orchestrator.sandbox-unavailable');

export class SandboxUnavailableError extends Error {
  readonly code = 'E_SANDBOX_UNAVAILABLE';
  readonly suggestion: string;
  readonly [MARKER] = true;

  constructor(message: string, suggestion: string) {
    super(message);
    this.name = 'SandboxUnavailableError';
    this.suggestion = suggestion;
  }

  static isInstance(value: unknown): value is SandboxUnavailableError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}

/** Returns the warning to show once, or undefined; throws SandboxUnavailableError for `required`. */
export function checkSandbox(config: SwarmConfig): string | undefined {
  const modes = new Map<string, Set<SandboxMode>>();
  for (const [name, plan] of config.agents) modes.set(name, new Set([plan.sandbox.mode, ...plan.tools.map((tool) => tool.sandbox.mode)]));
  const needing = (mode: SandboxMode) => [...modes].filter(([, set]) => set.has(mode)).map(([name]) => name);
  const required = needing('required');
  if (required.length === 0 && needing('bwrap').length === 0) return undefined;
  const bwrap = bwrapAvailability(config.env);
  if (bwrap.ok) return undefined;
  if (required.length > 0) {
    throw new SandboxUnavailableError(
      `agent${required.length === 1 ? '' : 's'} ${required.map((name) => `'${name}'`).join(', ')} must run tools sandboxed (sandbox mode: required), but ${bwrap.reason}`,
      `${INSTALL_BWRAP}, or set sandbox.mode: bwrap to let tools run unsandboxed where bwrap cannot`,
    );
  }
  return unsandboxedWarning(bwrap.reason);
}
