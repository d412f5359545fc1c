/**
 * How an AgentProcess learns who it is, fastest first:
 *  1. `--pool`: a warm process announces `runtime.pool.ready` and waits for `runtime.pool.assign`
 *     carrying its launch arguments and resolved plans (start-up cost already paid);
 *  2. launch arguments plus the plans in `GOONDAN_AGENT_PLAN` / `GOONDAN_SWARM_PLAN`;
 *  3. launch arguments only: load the bundle itself.
 * Plans cross a process boundary, so they are validated here (ajv, compiled once).
 */
import { Ajv } from 'ajv';
import { CONTROL, ORCHESTRATOR, controlEvent } from '../../shared/ipc/control-events.ts';
import type { Transport } from '../../shared/ipc/transport.ts';
import type { AgentPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import { type AgentProcessArgs, parseAgentProcessArgs } from './args.ts';

const ajv = new Ajv({ allErrors: true, strict: false });

const limit = { type: 'integer', minimum: 0 } as const;
// The sandbox decides what tool processes may touch: its shape is checked in full.
const sandboxPlanSchema = {
  type: 'object',
  required: ['mode', 'network', 'limits', 'readOnlyPaths'],
  properties: {
    mode: { enum: ['bwrap', 'none', 'required'] },
    network: { type: 'boolean' },
    limits: { type: 'object', required: ['cpuSeconds', 'memoryMb', 'processes', 'fileSizeMb'], properties: { cpuSeconds: limit, memoryMb: limit, processes: limit, fileSizeMb: limit } },
    readOnlyPaths: { type: 'array', items: { type: 'string', pattern: '^/' } },
  },
} as const;

const agentPlanSchema = {
  type: 'object',
  required: ['name', 'packageName', 'bundleRoot', 'model', 'modelParams', 'tools', 'extensions', 'requiredTools', 'sandbox'],
  properties: {
    name: { type: 'string' },
    model: { type: 'object', required: ['name', 'provider', 'model', 'options', 'capabilities'] },
    tools: { type: 'array', items: { type: 'object', required: ['name', 'entryPath', 'errorMessageLimit', 'exports', 'config', 'sandbox'], properties: { sandbox: sandboxPlanSchema } } },
    sandbox: sandboxPlanSchema,
    extensions: { type: 'array', items: { type: 'object', required: ['name', 'entryPath', 'config'] } },
    requiredTools: { type: 'array', items: { type: 'string' } },
  },
} as const;
const swarmPlanSchema = {
  type: 'object',
  required: ['name', 'instanceKey', 'workspaceId', 'entryAgent', 'agents', 'maxStepsPerTurn', 'shutdownGracePeriodMs'],
  properties: { agents: { type: 'array', items: { type: 'string' } }, maxStepsPerTurn: { type: 'integer', minimum: 1 } },
} as const;

const validateAgentPlan = ajv.compile<AgentPlan>(agentPlanSchema);
const validateSwarmPlan = ajv.compile<SwarmPlan>(swarmPlanSchema);
const validateAssignment = ajv.compile<{ args: AgentProcessArgs; agentPlan: AgentPlan; swarmPlan: SwarmPlan }>({
  type: 'object',
  required: ['args', 'agentPlan', 'swarmPlan'],
  properties: {
    args: {
      type: 'object',
      required: ['bundleDir', 'agentName', 'instanceKey', 'stateRoot'],
      properties: {
        bundleDir: { type: 'string' },
        agentName: { type: 'string', minLength: 1 },
        instanceKey: { type: 'string', minLength: 1 },
        stateRoot: { type: 'string' },
        swarm: { type: 'string' },
      },
    },
    agentPlan: agentPlanSchema,
    swarmPlan: swarmPlanSchema,
  },
});

export const AGENT_PLAN_ENV = 'GOONDAN_AGENT_PLAN';
export const SWARM_PLAN_ENV = 'GOONDAN_SWARM_PLAN';
export const POOL_FLAG = '--pool';

export interface AgentStartup {
  args: AgentProcessArgs;
  plans: { agent: AgentPlan; swarm: SwarmPlan };
  /** True when this process waited in the warm pool. */
  pooled: boolean;
}

export async function agentStartup(argv: string[], env: Record<string, string | undefined>, transport: Transport): Promise<AgentStartup> {
  if (argv[0] === POOL_FLAG) return waitForAssignment(transport);
  const args = parseAgentProcessArgs(argv);
  return { args, plans: await resolvePlans(args, env), pooled: false };
}

function waitForAssignment(transport: Transport): Promise<AgentStartup> {
  return new Promise((resolve, reject) => {
    let assigned = false;
    transport.onMessage((message) => {
      if (assigned || message.type !== 'event' || message.payload.type !== CONTROL.poolAssign) return;
      assigned = true;
      const assignment = message.payload.metadata;
      if (!validateAssignment(assignment)) {
        reject(new Error(`malformed pool assignment: ${ajv.errorsText(validateAssignment.errors)}`));
        return;
      }
      resolve({ args: assignment.args, plans: { agent: assignment.agentPlan, swarm: assignment.swarmPlan }, pooled: true });
    });
    transport.send({ type: 'event', from: 'pool', to: ORCHESTRATOR, payload: controlEvent(CONTROL.poolReady, { kind: 'agent', name: 'pool' }, { pid: process.pid }) });
  });
}

async function resolvePlans(args: AgentProcessArgs, env: Record<string, string | undefined>): Promise<{ agent: AgentPlan; swarm: SwarmPlan }> {
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
  // Loaded only on this path: the config plane (YAML, schemas) is ~50 ms of start-up an agent
  // started by the orchestrator never needs.
  const { buildAgentPlan, buildSwarmPlan, ConfigError, loadBundle, selectSwarm } = await import('../../shared/config/index.ts');
  const bundle = await loadBundle(args.bundleDir, { env });
  if (bundle.errors.length > 0) throw new ConfigError(bundle.errors);
  const swarmName = selectSwarm(bundle, args.swarm);
  return { swarm: buildSwarmPlan(bundle, swarmName), agent: buildAgentPlan(bundle, swarmName, args.agentName, env) };
}
