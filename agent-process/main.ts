/**
 * AgentProcess entry (ARCHITECTURE §4): one Bun process per (agent, instanceKey). It starts bare
 * — the same for a cold start and a warm pool process — and becomes its agent instance when the
 * orchestrator's `runtime.assign` arrives (shared/child/child-shell.ts, shell/agent-runtime.ts).
 */
import { runChildShell } from '../shared/child/child-shell.ts';
import { AGENT_SPARE_ENV, SPARE_PRIMED_AT_LAUNCH } from '../shared/ipc/agent-preload.ts';
import { preloadAgentModules, rehearseSpare } from './shell/agent-preload.ts';
import { primeAgent } from './shell/agent-priming.ts';
import { startAgent } from './shell/agent-runtime.ts';
import { handleStray, installToolCallScopes } from './tools/tool-call-scope.ts';

// Before any tool module loads: promises made by tool code are remembered from the start.
installToolCallScopes();
runChildShell({
  role: 'agent',
  start: startAgent,
  onUncaught: handleStray,
  prepare: () => preloadAgentModules(),
  rehearse: () => rehearseSpare(),
  prime: primeAgent,
  primeFollows: process.env[AGENT_SPARE_ENV] === SPARE_PRIMED_AT_LAUNCH,
});
