/**
 * What the orchestrator answers to each control request (the `result` of a `runtime.response`):
 * one schema and one type per request type, checked by the requester on receipt.
 */
import type { ApprovalDecision } from '../types/extensions.ts';
import type { AgentCatalog, AgentInstanceInfo, AgentSpawnResult } from '../types/tools.ts';
import { compiledValidator, describeErrors, type Validator } from '../validation/compiled-validator.ts';
import { isJsonObject, type JsonObject } from '../types/json.ts';

export interface ControlResults {
  'runtime.spawn': AgentSpawnResult;
  'runtime.list': { agents: AgentInstanceInfo[] };
  'runtime.catalog': AgentCatalog;
  'runtime.approval.request': ApprovalDecision;
  /** The call may go; `waitedMs` it was held for rate limits (or a person's decision). */
  'runtime.model.admit': { admissionId: string; waitedMs: number };
  'runtime.state.sync': Record<string, never>;
  'runtime.connection.exclusive': Record<string, never>;
}

export type ControlRequestType = keyof ControlResults;

const str = { type: 'string' } as const;
const strings = { type: 'array', items: str } as const;

const SCHEMAS: Record<ControlRequestType, object> = {
  'runtime.spawn': {
    type: 'object',
    required: ['target', 'instanceKey', 'spawned'],
    properties: { target: str, instanceKey: str, spawned: { type: 'boolean' }, cwd: str },
  },
  'runtime.list': {
    type: 'object',
    required: ['agents'],
    properties: {
      agents: {
        type: 'array',
        items: {
          type: 'object',
          required: ['target', 'instanceKey', 'createdAt', 'status'],
          properties: { target: str, instanceKey: str, ownerAgent: str, ownerInstanceKey: str, createdAt: str, status: str, cwd: str },
        },
      },
    },
  },
  'runtime.catalog': {
    type: 'object',
    required: ['swarmName', 'entryAgent', 'selfAgent', 'availableAgents', 'callableAgents'],
    properties: { swarmName: str, entryAgent: str, selfAgent: str, availableAgents: strings, callableAgents: strings },
  },
  'runtime.approval.request': {
    type: 'object',
    required: ['approved', 'scope', 'decidedBy'],
    properties: { approved: { type: 'boolean' }, scope: { enum: ['once', 'session'] }, decidedBy: str, reason: str },
  },
  'runtime.model.admit': {
    type: 'object',
    required: ['admissionId', 'waitedMs'],
    properties: { admissionId: { type: 'string', minLength: 1 }, waitedMs: { type: 'number', minimum: 0 } },
  },
  'runtime.state.sync': { type: 'object' },
  'runtime.connection.exclusive': { type: 'object' },
};

// Each is loaded on its first use.
const validators = new Map<string, Validator<JsonObject>>(
  Object.entries(SCHEMAS).map(([type, schema]) => [type, compiledValidator<JsonObject>({ schema, options: { allErrors: true, strict: false } })]),
);

function validatorFor(type: ControlRequestType): Validator<JsonObject> {
  const validate = validators.get(type);
  if (!validate) throw new Error(`no schema for control result '${type}'`);
  return validate;
}

function isResult<K extends ControlRequestType>(type: K, value: unknown): value is ControlResults[K] {
  return validatorFor(type)(value) === true;
}

export type ParsedResult<K extends ControlRequestType> = { ok: true; value: ControlResults[K] } | { ok: false; problem: string };

export function parseControlResult<K extends ControlRequestType>(type: K, result: JsonObject | undefined): ParsedResult<K> {
  if (!isResult(type, result)) return { ok: false, problem: `malformed ${type} result: ${describeErrors(validatorFor(type).errors)}` };
  return { ok: true, value: result };
}

/** A typed result as the JSON record a reply event carries (results are plain JSON data). */
export function resultJson(value: ControlResults[ControlRequestType]): JsonObject {
  const record: unknown = value;
  if (!isJsonObject(record)) throw new TypeError('a control result must be a JSON object');
  return record;
}
