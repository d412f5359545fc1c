/** Swarm: a set of agents run together under one instance key (SPEC.md §1.2). */
import type { JsonObject } from '../types/json.ts';
import { commonRef } from './common.ts';
import { refsRef } from './refs.ts';
import { resourceSchema } from './resource-envelope.ts';

function budgetLimit(description: string): JsonObject {
  return {
    type: 'object',
    description,
    additionalProperties: false,
    properties: {
      tokens: { type: 'integer', minimum: 1, description: 'Input + output tokens.' },
      cost: { type: 'number', exclusiveMinimum: 0, description: 'Cost in the budget\'s currency (from Model.spec.pricing).' },
    },
  };
}

export const swarmSchema = resourceSchema('Swarm', 'A group of agents run together; events without a target go to entryAgent.', {
  type: 'object',
  description: 'Member agents, entry agent and runtime policy.',
  additionalProperties: false,
  required: ['entryAgent', 'agents'],
  properties: {
    entryAgent: { ...refsRef('objectRef'), description: 'Agent that receives events without an explicit target; must be one of agents.' },
    agents: { type: 'array', description: 'Member agents (at least one).', items: refsRef('refItem') },
    instanceKey: { type: 'string', minLength: 1, description: 'Names this swarm\'s workspace (default the swarm name).' },
    policy: {
      type: 'object',
      description: 'Runtime policy (only these keys are allowed).',
      additionalProperties: false,
      properties: {
        maxStepsPerTurn: { type: 'integer', minimum: 1, description: 'Step limit per turn (default 32).' },
        startupTimeoutSeconds: {
          type: 'integer',
          minimum: 1,
          description: 'An agent process that has not become ready this long after its spawn is a start-up failure (E_AGENT_START_TIMEOUT; default 30).',
        },
        lifecycle: {
          type: 'object',
          description: 'Idle instance lifetime.',
          additionalProperties: false,
          properties: {
            ttlSeconds: {
              type: 'integer',
              minimum: 0,
              description: 'Passivate an instance idle this many seconds (default 300; 0 = never): its process drains and stops, its state stays on disk, and its next event starts it again. A turn that has only waited this long for a human approval or another agent\'s reply is passivated too; the answer starts it again.',
            },
            gcGraceSeconds: {
              type: 'integer',
              minimum: 0,
              description: 'Delete the state of an instance idle (passivated or stopped) this many seconds (absent = keep forever).',
            },
            maxLiveProcesses: {
              type: 'integer',
              minimum: 1,
              description:
                'At most this many agent instance processes run at once (default: derived from free memory and the measured size of an agent process). Beyond it the least recently used idle instance is passivated first; with none idle, the event waits in the durable inbox.',
            },
          },
        },
        sandbox: { ...commonRef('sandbox'), description: 'OS isolation of every agent\'s tool subprocesses (default mode bwrap, network off); agents override it with spec.sandbox.' },
        tools: { ...commonRef('toolPolicy'), description: 'Swarm-wide tool permission policy; agents add their own rules with spec.toolPolicy (goondan addition).' },
        durability: {
          type: 'object',
          description: 'How accepted events, conversation state and the tool-call journal reach the disk.',
          additionalProperties: false,
          properties: {
            fsync: {
              enum: ['always', 'batch', 'never'],
              description:
                'always: fsync every record (survives power loss record by record; slowest). batch (default): fsync at most every 50 ms and always before a reply, an ack, an accepted event id or a tool call is released. never: page cache only (survives any process crash, not a machine crash).',
            },
            retention: {
              type: 'object',
              description: 'Bounds of the logs that grow with traffic. Unacknowledged inbox events are never dropped.',
              additionalProperties: false,
              properties: {
                runtimeEventsMaxBytes: {
                  type: 'integer',
                  minimum: 4096,
                  description: 'Size of each runtime-events.jsonl (per instance, and the daemon\'s SSE replay log) before it rotates; one older generation is kept. Default 16 MiB.',
                },
                runtimeEventsMaxAgeHours: { type: 'number', exclusiveMinimum: 0, description: 'Age after which a runtime-events.jsonl generation rotates and the older one is dropped. Default 168 (7 days).' },
                inboxCompactLines: {
                  type: 'integer',
                  minimum: 10,
                  description: 'An inbox file with this many lines, most of them acknowledged, is rewritten with only its unacknowledged events. Default 200.',
                },
              },
            },
          },
        },
        interAgent: {
          type: 'object',
          description: 'Which instances agents may reach with agents__request / send / spawn / list, and how long a chain of agent messages may grow.',
          additionalProperties: false,
          properties: {
            instanceKeys: {
              enum: ['scoped', 'any'],
              description:
                "scoped (default): an agent reaches its own instance key, keys under it ('<own>/<name>', its private helpers), keys above it, and sharedInstanceKeys — never another tenant's conversation (INSTANCE_OUT_OF_SCOPE). any: every instance key.",
            },
            sharedInstanceKeys: {
              type: 'array',
              items: { type: 'string', minLength: 1 },
              description: 'Instance keys every agent may reach under scoped (a shared coordinator, a shared persona).',
            },
            maxHops: {
              type: 'integer',
              minimum: 1,
              description:
                'A message an agent sends or requests this many agent messages after the outside event that started the chain is refused with HOP_LIMIT_EXCEEDED (default 32): ends loops of agents messaging each other.',
            },
            maxMessagesPerTrace: {
              type: 'integer',
              minimum: 1,
              description:
                'Agent messages one outside event may cause in all, across every agent and instance (default 256); past it they are refused with HOP_LIMIT_EXCEEDED: ends fan-outs that stay within maxHops. Counted per daemon, from its start.',
            },
          },
        },
        shutdown: {
          type: 'object',
          description: 'Graceful shutdown.',
          additionalProperties: false,
          properties: {
            gracePeriodSeconds: { type: 'integer', minimum: 0, description: 'Wait this long for a running turn before SIGKILL (default 300).' },
          },
        },
        budget: {
          type: 'object',
          description:
            'Token and cost limits that the orchestrator enforces across all agents. Before each model call an agent asks the orchestrator; a call that would exceed a limit fails with BUDGET_EXCEEDED (onExceeded: deny) or waits for a person (ask). tokens = input + output tokens. Days are UTC days; day totals survive a daemon restart.',
          additionalProperties: false,
          properties: {
            perTurn: budgetLimit('One turn from outside the swarm together with every turn it causes in other agents (they share its trace).'),
            perInstancePerDay: budgetLimit('One instance key (every agent of the swarm under that key) per UTC day.'),
            perSwarmPerDay: budgetLimit('The whole swarm per UTC day.'),
            onExceeded: {
              type: 'string',
              enum: ['deny', 'ask'],
              description:
                'deny (default): the call fails with BUDGET_EXCEEDED, which the turn and its caller see. ask: a person approves or refuses the call, at the terminal or with POST /v1/approvals/{id}; with nobody to ask, the call is refused.',
            },
            currency: {
              type: 'string',
              pattern: '^[A-Z]{3}$',
              description: 'Currency of the cost limits (default: the one currency that the priced models of the swarm use).',
            },
          },
        },
      },
    },
  },
});
