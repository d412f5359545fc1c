/**
 * The typed control protocol (ARCHITECTURE §2): control traffic is `event`s whose `type` starts with
 * `runtime.`; each type has ONE payload schema (ajv, compiled once on first use) and ONE TypeScript
 * type, used by sender and receiver alike. The payload travels in `event.metadata`.
 */
import { type ErrorShape, errorShapeSchema } from '../errors/error-shape.ts';
import { agentPlanSchema, connectionPlanSchema, swarmPlanSchema } from '../schemas/plans.ts';
import type { AgentPlan, ConnectionPlan, SwarmPlan } from '../types/bundle.ts';
import type { AgentEvent, EventSource } from '../types/events.ts';
import type { Cost, TokenUsage } from '../types/turns.ts';
import { isJsonObject, type JsonObject } from '../types/json.ts';
import { compiledValidator, type Validator } from '../validation/compiled-validator.ts';
import { makeEvent } from './control-events.ts';

/** Who the child becomes: an agent instance … */
export type AgentAssignment = {
  role: 'agent';
  agent: string;
  instanceKey: string;
  stateRoot: string;
  agentPlan: AgentPlan;
  swarmPlan: SwarmPlan;
  /** Cluster mode (issue 15): ask `runtime.state.sync` before each tool handler acts. */
  replicateState?: boolean;
};
/** … or the process of one Connection. */
export type ConnectorAssignment = {
  role: 'connector';
  connection: ConnectionPlan;
  /** Where an interactive connector logs (its stdout is the user's terminal). */
  logFile?: string;
};
export type Assignment = AgentAssignment | ConnectorAssignment;
/** An agent assignment to a spare primed with the instance's plans: they are not sent again (primed-assignment.ts). */
export type PrimedAgentAssignment = Omit<AgentAssignment, 'agentPlan' | 'swarmPlan'> & { asPrimed: true };

/** How people see the call (issue 17): the export's rendered summary, its display name and icon, the tool's preview. */
export type ApprovalDisplay = {
  summary?: string;
  displayName?: string;
  icon?: string;
  preview?: string;
};

const APPROVAL_DISPLAY_KEYS = ['summary', 'displayName', 'icon', 'preview'] as const;

/** The display fields `source` sets (and only those), to carry from a request to its record or prompt. */
export function approvalDisplayOf(source: ApprovalDisplay): ApprovalDisplay {
  const display: ApprovalDisplay = {};
  for (const key of APPROVAL_DISPLAY_KEYS) {
    const value = source[key];
    if (value !== undefined) display[key] = value;
  }
  return display;
}

export type ApprovalPrompt = ApprovalDisplay & {
  id: string;
  agent: string;
  instanceKey: string;
  toolName: string;
  toolCallId: string;
  args: JsonObject;
  reason: string;
  createdAt: string;
  expiresAt: string;
};

/** What a turn answered, as `GET /v1/events/{id}` and an idempotent retry report it. */
export type TurnReply = { status: 'ok' | 'error' | 'timeout'; output: string; turnId?: string; traceId?: string; error?: ErrorShape };

export interface ControlPayloads {
  /** child → orchestrator: the bare process is up (modules loaded) and waits for its assignment. */
  'runtime.ready': { pid: number };
  /** orchestrator → child: identity and plan, in one message (cold and warm starts alike); to a primed spare, maybe without the plans it holds. */
  'runtime.assign': Assignment | PrimedAgentAssignment;
  /**
   * orchestrator → warm spare (agent processes only): the plan of the agent it will most likely
   * become, to rehearse a turn with before anyone waits for it (agent-process/shell/agent-priming.ts).
   * Over IPC, never the environment: the plan holds resolved keys. The spare stays a spare.
   */
  'runtime.prime': { agentPlan: AgentPlan; swarmPlan: SwarmPlan };
  /** warm spare → orchestrator: primed for `agent` (`ok: false`: the rehearsal failed; the spare is as warm as before). */
  'runtime.primed': { agent: string; ok: boolean };
  /** child → orchestrator: built from its assignment; the events sent since (they follow `runtime.assign`) run now. */
  'runtime.started': { startupMs: number };
  /** child → orchestrator: cannot start; the process exits. Not retried unless `retryable`. */
  'runtime.failed': { error: ErrorShape; retryable: boolean };
  /** agent → orchestrator: `eventId` dequeued (status `processing`). */
  'runtime.turn.started': { eventId: string };
  /** agent → orchestrator: `eventId` folded; acknowledges the durable inbox entry. `reply`: the turn's answer (event ledger, issue 10). */
  'runtime.turn.completed': { eventId: string; turnId?: string; reply?: TurnReply };
  /** agent → orchestrator: an async reply that came through the durable inbox is stored on the agent's side; ack it. */
  'runtime.reply.stored': { eventId: string };
  /**
   * orchestrator → agent: the turn that answered request `correlationId` before it reached the
   * disk (the reply said `unsynced`) is on disk now (unsynced-replies.ts).
   */
  'runtime.reply.synced': { correlationId: string };
  /**
   * agent → orchestrator: RuntimeEvents in the order they happened (each validated again as such by
   * the receiver); a loop turn's events travel in one message (ShellChannel.observe).
   */
  'runtime.observe': { events: JsonObject[] };
  /** agent → orchestrator requests, answered with `runtime.response` (see ControlResults). */
  'runtime.spawn': { target: string; instanceKey?: string; cwd?: string };
  'runtime.list': { includeAll: boolean };
  'runtime.catalog': Record<string, never>;
  /** `eventId`: the event whose turn asks — with toolCallId it finds the same approval after a resume (issue 10). */
  'runtime.approval.request': ApprovalDisplay & { toolName: string; toolCallId: string; args: JsonObject; reason: string; timeoutMs: number; eventId?: string };
  /** orchestrator → interactive connector: ask the person at the terminal. */
  'runtime.approval.prompt': ApprovalPrompt;
  /** interactive connector → orchestrator. */
  'runtime.approval.decision': { id: string; approved: boolean; scope: 'once' | 'session'; reason?: string };
  /**
   * orchestrator → connector, for a request that asked for it (`__streamReply`): a chunk of the
   * reply's text as the model produces it — the `step.delta` text of the agent the request went to.
   */
  'runtime.reply.delta': { correlationId: string; stepId: string; text: string };
  /**
   * agent → orchestrator, before each model call when a budget or a rate limit applies to the agent:
   * answered (ControlResults) once the call may go, or with BUDGET_EXCEEDED.
   */
  'runtime.model.admit': { traceId: string; estimatedInputTokens: number };
  /** agent → orchestrator: the admitted call ended (with its usage when the model answered). */
  'runtime.model.release': { admissionId: string; stepId: string; usage?: TokenUsage; cost?: Cost };
  /** agent → orchestrator: the provider answered 429 with Retry-After: pause the Model for every agent. */
  'runtime.model.throttled': { retryAfterMs: number };
  /** agent → orchestrator: restart me after this turn (self-restart tool). */
  'runtime.restart': { reason: string };
  /** agent → orchestrator (cluster mode): replicate my state now; answered once it is stored. */
  'runtime.state.sync': Record<string, never>;
  /**
   * connector → orchestrator: answered once this process is the only one of its connection in the
   * cluster allowed to hold the provider's connection (a poller); at once on a single node.
   */
  'runtime.connection.exclusive': Record<string, never>;
  /** orchestrator → child: a send could not be routed. */
  'runtime.error': { eventId: string; error: ErrorShape };
}

export type ControlType = keyof ControlPayloads;

/** A validated control event, narrowed by `type`. */
export type ControlMessage = { [K in ControlType]: { type: K; payload: ControlPayloads[K]; event: AgentEvent } }[ControlType];

const str = { type: 'string' } as const;
const name = { type: 'string', minLength: 1 } as const;
const anyObject = { type: 'object' } as const;
const count = { type: 'number', minimum: 0 } as const;
const errorRef = { $ref: errorShapeSchema.$id } as const;

/** ApprovalDisplay, one schema for the agent's request and the connector's prompt. */
const APPROVAL_DISPLAY = { summary: str, displayName: str, icon: str, preview: str };

function closed(required: string[], properties: Record<string, object>): object {
  return { type: 'object', required, properties, additionalProperties: false };
}

const SCHEMAS: Record<ControlType, object> = {
  'runtime.ready': closed(['pid'], { pid: { type: 'integer', minimum: 1 } }),
  'runtime.assign': {
    oneOf: [
      closed(['role', 'agent', 'instanceKey', 'stateRoot', 'agentPlan', 'swarmPlan'], {
        role: { const: 'agent' },
        agent: name,
        instanceKey: name,
        stateRoot: name,
        agentPlan: { $ref: agentPlanSchema.$id },
        swarmPlan: { $ref: swarmPlanSchema.$id },
        replicateState: { type: 'boolean' },
      }),
      closed(['role', 'agent', 'instanceKey', 'stateRoot', 'asPrimed'], {
        role: { const: 'agent' },
        agent: name,
        instanceKey: name,
        stateRoot: name,
        asPrimed: { const: true },
        replicateState: { type: 'boolean' },
      }),
      closed(['role', 'connection'], { role: { const: 'connector' }, connection: { $ref: connectionPlanSchema.$id }, logFile: name }),
    ],
  },
  'runtime.prime': closed(['agentPlan', 'swarmPlan'], { agentPlan: { $ref: agentPlanSchema.$id }, swarmPlan: { $ref: swarmPlanSchema.$id } }),
  'runtime.primed': closed(['agent', 'ok'], { agent: name, ok: { type: 'boolean' } }),
  'runtime.started': closed(['startupMs'], { startupMs: { type: 'number', minimum: 0 } }),
  'runtime.failed': closed(['error', 'retryable'], { error: errorRef, retryable: { type: 'boolean' } }),
  'runtime.turn.started': closed(['eventId'], { eventId: name }),
  'runtime.turn.completed': closed(['eventId'], {
    eventId: name,
    turnId: name,
    reply: closed(['status', 'output'], { status: { enum: ['ok', 'error', 'timeout'] }, output: str, turnId: str, traceId: str, error: errorRef }),
  }),
  'runtime.reply.stored': closed(['eventId'], { eventId: name }),
  'runtime.reply.synced': closed(['correlationId'], { correlationId: name }),
  'runtime.observe': closed(['events'], { events: { type: 'array', minItems: 1, items: anyObject } }),
  'runtime.spawn': closed(['target'], { target: name, instanceKey: name, cwd: str }),
  'runtime.list': closed(['includeAll'], { includeAll: { type: 'boolean' } }),
  'runtime.catalog': closed([], {}),
  'runtime.approval.request': closed(['toolName', 'toolCallId', 'args', 'reason', 'timeoutMs'], {
    toolName: name,
    toolCallId: str,
    args: anyObject,
    reason: str,
    timeoutMs: { type: 'integer', minimum: 1 },
    eventId: name,
    ...APPROVAL_DISPLAY,
  }),
  'runtime.approval.prompt': closed(['id', 'agent', 'instanceKey', 'toolName', 'toolCallId', 'args', 'reason', 'createdAt', 'expiresAt'], {
    id: name,
    agent: name,
    instanceKey: name,
    toolName: name,
    toolCallId: str,
    args: anyObject,
    reason: str,
    createdAt: str,
    expiresAt: str,
    ...APPROVAL_DISPLAY,
  }),
  'runtime.approval.decision': closed(['id', 'approved', 'scope'], { id: name, approved: { type: 'boolean' }, scope: { enum: ['once', 'session'] }, reason: str }),
  'runtime.reply.delta': closed(['correlationId', 'stepId', 'text'], { correlationId: name, stepId: name, text: str }),
  'runtime.model.admit': closed(['traceId', 'estimatedInputTokens'], { traceId: name, estimatedInputTokens: count }),
  'runtime.model.release': closed(['admissionId', 'stepId'], {
    admissionId: name,
    stepId: name,
    usage: closed(['promptTokens', 'completionTokens', 'totalTokens'], { promptTokens: count, completionTokens: count, totalTokens: count, cachedPromptTokens: count }),
    cost: closed(['amount', 'currency'], { amount: count, currency: name }),
  }),
  'runtime.model.throttled': closed(['retryAfterMs'], { retryAfterMs: count }),
  'runtime.restart': closed(['reason'], { reason: str }),
  'runtime.state.sync': closed([], {}),
  'runtime.connection.exclusive': closed([], {}),
  'runtime.error': closed(['eventId', 'error'], { eventId: name, error: errorRef }),
};

const REFS = [errorShapeSchema, agentPlanSchema, swarmPlanSchema, connectionPlanSchema];
// Each is loaded on its first use: an agent process only ever needs a few of these.
const validators = new Map<string, Validator<JsonObject>>(
  Object.entries(SCHEMAS).map(([type, schema]) => [type, compiledValidator<JsonObject>({ schema, refs: REFS, options: { allErrors: true, strict: false } })]),
);

function validatorFor(type: ControlType): Validator<JsonObject> {
  const validator = validators.get(type);
  if (!validator) throw new Error(`no schema for control type '${type}'`);
  return validator;
}

export function isControlType(type: string): type is ControlType {
  return Object.hasOwn(SCHEMAS, type);
}

export type ParsedControl = { ok: true; message: ControlMessage } | { ok: false; problems: string[] };

/** Validates a `runtime.*` event's payload against its type's schema. */
export function parseControl(event: AgentEvent): ParsedControl {
  if (!isControlType(event.type)) return { ok: false, problems: [`unknown control type '${event.type}'`] };
  const validate = validatorFor(event.type);
  const payload = event.metadata ?? {};
  if (!validate(payload)) {
    const problems = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '(payload)'} ${e.message ?? 'is invalid'}`);
    return { ok: false, problems };
  }
  // The schema for `event.type` just accepted `payload`: this pairing is what ControlMessage states.
  return { ok: true, message: { type: event.type, payload, event } as ControlMessage };
}

/** A control event of `type` carrying `payload` (plus `replyTo` for requests). */
export function controlEvent<K extends ControlType>(type: K, from: EventSource, payload: ControlPayloads[K], fields: Pick<AgentEvent, 'replyTo'> = {}): AgentEvent {
  return makeEvent(type, from, { metadata: asJsonObject(payload), ...fields });
}

/** Payload types are plain JSON records; narrow instead of copying (some are sent several times a turn). */
function asJsonObject(payload: object): JsonObject {
  const record: unknown = payload;
  if (!isJsonObject(record)) throw new TypeError('a control payload must be a JSON object');
  return record;
}
