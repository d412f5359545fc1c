/**
 * Where an AgentProcess gets its resolved plan: the orchestrator hands it over in
 * `GOONDAN_AGENT_PLAN` / `GOONDAN_SWARM_PLAN` (JSON, validated here: it crosses a process
 * boundary) so a spawn skips YAML parsing; without them the process loads the bundle itself.
 */
import { Ajv } from 'ajv';
import { buildAgentPlan, buildSwarmPlan, ConfigError, loadBundle, selectSwarm } from '../../shared/config/index.ts';
import type { AgentPlan, SwarmPlan } from '../../shared/types/bundle.ts';

const ajv = new Ajv({ allErrors: true, strict: false });

const validateAgentPlan = ajv.compile<AgentPlan>({
  type: 'object',
  required: ['name', 'packageName', 'bundleRoot', 'model', 'modelParams', 'tools', 'extensions', 'requiredTools'],
  properties: {
    name: { type: 'string' },
    model: { type: 'object', required: ['name', 'provider', 'model', 'options', 'capabilities'] },
    tools: { type: 'array', items: { type: 'object', required: ['name', 'entryPath', 'errorMessageLimit', 'exports', 'config'] } },
    extensions: { type: 'array', items: { type: 'object', required: ['name', 'entryPath', 'config'] } },
    requiredTools: { type: 'array', items: { type: 'string' } },
  },
});

const validateSwarmPlan = ajv.compile<SwarmPlan>({
  type: 'object',
  required: ['name', 'instanceKey', 'workspaceId', 'entryAgent', 'agents', 'maxStepsPerTurn', 'shutdownGracePeriodMs'],
  properties: { agents: { type: 'array', items: { type: 'string' } }, maxStepsPerTurn: { type: 'integer', minimum: 1 } },
});

export const AGENT_PLAN_ENV = 'GOONDAN_AGENT_PLAN';
export const SWARM_PLAN_ENV = 'GOONDAN_SWARM_PLAN';

export async function resolvePlans(
  args: { bundleDir: string; agentName: string; swarm?: string },
  env: Record<string, string | undefined>,
): Promise<{ agent: AgentPlan; swarm: SwarmPlan }> {
  const agentJson = env[AGENT_PLAN_ENV];
  const swarmJson = env[SWARM_PLAN_ENV];
  if (agentJson && swarmJson) {
    const agent: unknown = JSON.parse(agentJson);
    const swarm: unknown = JSON.parse(swarmJson);
    if (!validateAgentPlan(agent)) throw new Error(`${AGENT_PLAN_ENV} is malformed: ${ajv.errorsText(validateAgentPlan.errors)}`);
    if (!validateSwarmPlan(swarm)) throw new Error(`${SWARM_PLAN_ENV} is malformed: ${ajv.errorsText(validateSwarmPlan.errors)}`);
    if (agent.name !== args.agentName) throw new Error(`${AGENT_PLAN_ENV} is for agent '${agent.name}', not '${args.agentName}'`);
    return { agent, swarm };
  }
  const bundle = await loadBundle(args.bundleDir, { env });
  if (bundle.errors.length > 0) throw new ConfigError(bundle.errors);
  const swarmName = selectSwarm(bundle, args.swarm);
  return { swarm: buildSwarmPlan(bundle, swarmName), agent: buildAgentPlan(bundle, swarmName, args.agentName, env) };
}
