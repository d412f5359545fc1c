/**
 * JSON Schemas of the resolved plans (shared/types/bundle.ts) — what the orchestrator hands an agent
 * or connector process in its `runtime.assign` message. Plans cross a process boundary, so the child
 * validates them whole with these (ARCHITECTURE §2), compiled once.
 */
import { FSYNC_MODES } from '../durability/fsync-policy.ts';
import { MODEL_PROVIDERS } from './model.ts';
import { toolExportDeclarations } from './tool-export-declarations.ts';

const text = { type: 'string' } as const;
const name = { type: 'string', minLength: 1 } as const;
const object = { type: 'object' } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const price = { type: 'number', minimum: 0 } as const;
const positive = { type: 'number', exclusiveMinimum: 0 } as const;
const budgetLimit = { type: 'object', additionalProperties: false, properties: { tokens: positive, cost: positive } } as const;

const limit = { type: 'integer', minimum: 0 } as const;
// The sandbox decides what tool processes may touch: its shape is checked in full.
const sandboxPlanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['mode', 'network', 'limits', 'readOnlyPaths'],
  properties: {
    mode: { enum: ['bwrap', 'none', 'required'] },
    network: { type: 'boolean' },
    limits: {
      type: 'object',
      additionalProperties: false,
      required: ['cpuSeconds', 'memoryMb', 'processes', 'fileSizeMb'],
      properties: { cpuSeconds: limit, memoryMb: limit, processes: limit, fileSizeMb: limit },
    },
    readOnlyPaths: { type: 'array', items: { type: 'string', pattern: '^/' } },
  },
} as const;

const modelPlanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'provider', 'model', 'options', 'capabilities'],
  properties: {
    name,
    provider: { enum: MODEL_PROVIDERS },
    model: name,
    endpoint: text,
    apiKey: text,
    options: object,
    capabilities: { type: 'object', additionalProperties: { type: 'boolean' } },
    pricing: {
      type: 'object',
      additionalProperties: false,
      required: ['inputPerMillionTokens', 'outputPerMillionTokens', 'currency'],
      properties: { inputPerMillionTokens: price, outputPerMillionTokens: price, cachedInputPerMillionTokens: price, currency: name },
    },
    rateLimit: {
      type: 'object',
      additionalProperties: false,
      properties: { requestsPerMinute: positive, tokensPerMinute: positive, maxConcurrent: { type: 'integer', minimum: 1 } },
    },
  },
} as const;

const toolExportSchema = {
  type: 'object',
  // The tool spec (6.1) makes `description` optional; `parameters` is filled in by the plan.
  required: ['name', 'parameters'],
  properties: {
    name,
    description: text,
    parameters: { type: 'object', required: ['type'], properties: { type: { const: 'object' } } },
    readOnly: { type: 'boolean' },
    idempotent: { type: 'boolean' },
    // Header ValueSources are resolved into the plan: only strings remain.
    ...toolExportDeclarations({ type: 'string' }),
  },
} as const;

const toolPlanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'packageName', 'errorMessageLimit', 'exports', 'config', 'sandbox'],
  properties: {
    name,
    packageName: text,
    entryPath: name,
    errorMessageLimit: { type: 'integer', minimum: 1 },
    maxResultBytes: { type: 'integer', minimum: 1 },
    exports: { type: 'array', minItems: 1, items: toolExportSchema },
    config: object,
    sandbox: sandboxPlanSchema,
    timeoutMs: { type: 'integer', minimum: 1 },
  },
} as const;

const extensionPlanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'packageName', 'entryPath', 'config'],
  properties: { name, packageName: text, entryPath: name, config: object },
} as const;

export const agentPlanSchema = {
  $id: 'goondan://plans/agent',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'packageName', 'bundleRoot', 'model', 'modelParams', 'tools', 'extensions', 'requiredTools', 'maxToolResultBytes', 'sandbox'],
  properties: {
    name,
    packageName: text,
    bundleRoot: name,
    systemPrompt: text,
    model: modelPlanSchema,
    modelParams: {
      type: 'object',
      additionalProperties: false,
      properties: { temperature: { type: 'number' }, maxTokens: { type: 'integer' }, topP: { type: 'number' } },
    },
    tools: { type: 'array', items: toolPlanSchema },
    extensions: { type: 'array', items: extensionPlanSchema },
    requiredTools: { type: 'array', items: name },
    maxToolResultBytes: { type: 'integer', minimum: 1 },
    sandbox: sandboxPlanSchema,
  },
} as const;

export const swarmPlanSchema = {
  $id: 'goondan://plans/swarm',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'instanceKey', 'workspaceId', 'entryAgent', 'agents', 'maxStepsPerTurn', 'shutdownGracePeriodMs', 'startupTimeoutMs', 'durability', 'lifecycle', 'interAgent'],
  properties: {
    name,
    instanceKey: name,
    workspaceId: name,
    entryAgent: name,
    agents: { type: 'array', minItems: 1, items: name },
    maxStepsPerTurn: { type: 'integer', minimum: 1 },
    shutdownGracePeriodMs: { type: 'integer', minimum: 0 },
    startupTimeoutMs: { type: 'integer', minimum: 1 },
    budget: {
      type: 'object',
      additionalProperties: false,
      required: ['onExceeded'],
      properties: {
        perTurn: budgetLimit,
        perInstancePerDay: budgetLimit,
        perSwarmPerDay: budgetLimit,
        onExceeded: { enum: ['deny', 'ask'] },
        currency: name,
      },
    },
    durability: {
      type: 'object',
      additionalProperties: false,
      required: ['fsync', 'retention'],
      properties: {
        fsync: { enum: FSYNC_MODES },
        retention: {
          type: 'object',
          additionalProperties: false,
          required: ['runtimeEventsMaxBytes', 'runtimeEventsMaxAgeMs', 'inboxCompactLines'],
          properties: {
            runtimeEventsMaxBytes: { type: 'integer', minimum: 1 },
            runtimeEventsMaxAgeMs: { type: 'number', exclusiveMinimum: 0 },
            inboxCompactLines: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
    lifecycle: {
      type: 'object',
      additionalProperties: false,
      required: ['ttlMs'],
      properties: { ttlMs: { type: 'integer', minimum: 0 }, gcGraceMs: { type: 'integer', minimum: 0 }, maxLiveProcesses: { type: 'integer', minimum: 1 } },
    },
    interAgent: {
      type: 'object',
      additionalProperties: false,
      required: ['instanceKeys', 'sharedInstanceKeys', 'maxHops', 'maxMessagesPerTrace'],
      properties: {
        instanceKeys: { enum: ['scoped', 'any'] },
        sharedInstanceKeys: { type: 'array', items: name },
        maxHops: { type: 'integer', minimum: 1 },
        maxMessagesPerTrace: { type: 'integer', minimum: 1 },
      },
    },
  },
} as const;

export const connectionPlanSchema = {
  $id: 'goondan://plans/connection',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'connectorName', 'connectorEntryPath', 'events', 'swarmName', 'config', 'secrets', 'rules'],
  properties: {
    name,
    connectorName: name,
    connectorEntryPath: name,
    events: {
      type: 'array',
      items: { type: 'object', required: ['name'], properties: { name, properties: object } },
    },
    swarmName: name,
    config: stringMap,
    secrets: stringMap,
    rules: { type: 'array', items: { type: 'object', required: ['route'], properties: { match: object, route: object } } },
  },
} as const;
