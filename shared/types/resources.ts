/**
 * The declarative resource model (SPEC.md §1): what a bundle's YAML documents mean once parsed.
 * The JSON Schemas in shared/schemas/ are the executable form of these types.
 */
import type { JsonObject, JsonValue } from './json.ts';
import type { SandboxSpec } from './sandbox.ts';

export const API_VERSION = 'goondan.ai/v1';
export const BASE_PACKAGE = '@goondan/base';

export const RESOURCE_KINDS = [
  'Model',
  'Agent',
  'Swarm',
  'Tool',
  'Extension',
  'Connector',
  'Connection',
  'Package',
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface ResourceMetadata {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** `"Kind/name"` or `{kind, name, package?}` (SPEC.md §1.1). */
export type ObjectRefLike = string | ObjectRef;
export interface ObjectRef {
  kind: ResourceKind;
  name: string;
  package?: string;
  apiVersion?: string;
}
export interface RefItem {
  ref: ObjectRefLike;
  /** Only on `Agent.spec.tools[]` / `extensions[]`: shallow-merged over the resource's `spec.config`. */
  config?: JsonObject;
}

/** A value given inline or read from the environment / a secret (SPEC.md §1.1). */
export type ValueSource =
  | { value: string }
  | { valueFrom: { env: string } }
  | { valueFrom: { secretRef: { ref: string; key: string } } };

export interface Resource<K extends ResourceKind = ResourceKind, S = unknown> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: ResourceMetadata;
  spec: S;
}

// ── Model ──────────────────────────────────────────────────────────────────
export type ModelProvider = 'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'mock';
export interface ModelSpec {
  provider: ModelProvider;
  model: string;
  apiKey?: ValueSource;
  /** Base URL of the provider API. */
  endpoint?: string;
  /** Provider-specific knobs, passed through to the adapter (for `mock`: the script, see README). */
  options?: JsonObject;
  capabilities?: { streaming?: boolean; toolCalling?: boolean; [capability: string]: boolean | undefined };
  /** What a call costs; every model call of the Model is priced with it. */
  pricing?: ModelPricing;
  /** One limiter in the orchestrator shared by every agent process using this Model. */
  rateLimit?: ModelRateLimit;
}
export interface ModelPricing {
  inputPerMillionTokens: number;
  outputPerMillionTokens: number;
  /** Price of input tokens the provider served from its prompt cache (default: the input price). */
  cachedInputPerMillionTokens?: number;
  /** ISO 4217 code, e.g. USD. */
  currency: string;
}
export interface ModelRateLimit {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  maxConcurrent?: number;
}

// ── Tool ───────────────────────────────────────────────────────────────────
export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, JsonObject>;
  required?: string[];
  additionalProperties?: boolean | JsonObject;
  [keyword: string]: JsonValue | undefined;
}
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * An export answered by one HTTP request instead of a handler (seed 004 §5.1). `url`, `headers` and
 * `body` are templates over the call (`{{args.id}}`, `{{config.baseUrl}}`); header values may be
 * ValueSources (credentials).
 */
export interface HttpExportSpec {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string | ValueSource>;
  /** A string template, or JSON whose string leaves are templates (`"{{args.x}}"` alone keeps x's type). */
  body?: JsonValue;
  /** The request's own time limit (default 30000 ms). */
  timeoutMs?: number;
}
/** One export as written in the Tool resource; `description` and `parameters` are optional (tool spec §6.1). */
export interface ToolExportSpec {
  name: string;
  description?: string;
  /** Absent for a function without arguments: its plan gets `{ type: 'object', properties: {} }`. */
  parameters?: JsonSchemaObject;
  /** Read-only exports are allowed by the default permission policy without asking. */
  readOnly?: boolean;
  /** Config keys that, set to a non-empty value, make a `readOnly` export not read-only for that agent. */
  readOnlyUnlessConfig?: string[];
  /** Safe to run again after a crash interrupted it (issue 10); otherwise E_TOOL_INTERRUPTED. */
  idempotent?: boolean;
  /** Answered by this HTTP request; such an export has no handler. */
  http?: HttpExportSpec;
  /** Shown to people instead of the `<tool>__<export>` name (approval prompt, logs). */
  displayName?: string;
  /** An emoji or a short name shown beside displayName. */
  icon?: string;
  /** One-line template of what a call does (`"Run {{args.command}}"`), for approvals, events and logs. */
  summary?: string;
  /** JSON Schema of the handler's result (checked; strict with GOONDAN_STRICT_RESULTS=1). */
  returns?: JsonObject;
  /** Calls of this export beyond this many in one turn are refused (E_TOOL_CALL_LIMIT). */
  maxCallsPerTurn?: number;
  /** The engine's time limit for one call (default 300000 ms). */
  timeoutMs?: number;
  /** The argument holding the call's own time limit (e.g. bash's timeoutMs): the engine then waits at least that long. */
  timeoutFromArg?: string;
}
export interface ToolSpec {
  /** Handler module; optional when every export declares `http`. */
  entry?: string;
  errorMessageLimit?: number;
  /** Results larger than this are cut in the conversation and saved whole in the workspace. */
  maxResultBytes?: number;
  exports: ToolExportSpec[];
  /** Handler settings, handed to handlers as `ctx.config` (goondan addition, like Extension config). */
  config?: JsonObject;
}

// ── Extension ──────────────────────────────────────────────────────────────
export interface ExtensionSpec {
  entry: string;
  config?: JsonObject;
}

// ── Agent ──────────────────────────────────────────────────────────────────
export interface ModelParams {
  temperature?: number;
  maxTokens?: number;
  topP?: number;
}
export interface AgentSpec {
  modelConfig: { modelRef: ObjectRefLike; params?: ModelParams };
  prompt?: { system?: string; systemRef?: string };
  /** The upstream (goondan v0.0.3) spelling of `prompt`. */
  prompts?: { systemPrompt?: string; systemRef?: string };
  tools?: Array<ObjectRefLike | RefItem>;
  extensions?: Array<ObjectRefLike | RefItem>;
  /** Tool names (`tool__export`) of which at least one must succeed before a turn may end. */
  requiredTools?: string[];
  /** This agent's tool permission rules, added to the swarm's `policy.tools`. */
  toolPolicy?: ToolPolicySpec;
  /** Tool results larger than this are cut in the conversation (default 65536). */
  maxToolResultBytes?: number;
  /** Overrides the swarm's `policy.sandbox` field by field. */
  sandbox?: SandboxSpec;
}

// ── Tool permission policy (goondan addition; seed 004 §6) ─────────────────
export type ToolPolicyAction = 'allow' | 'ask' | 'deny';
export interface ToolPolicyRule {
  /** Tool name pattern (`*` = anything), e.g. `file-system__*`. */
  tool: string;
  /** Argument patterns; all must match. */
  args?: Record<string, string>;
  action: ToolPolicyAction;
  reason?: string;
}
export interface ToolPolicySpec {
  default?: ToolPolicyAction;
  askTimeoutSeconds?: number;
  rules?: ToolPolicyRule[];
}

// ── Swarm ──────────────────────────────────────────────────────────────────
export interface SwarmPolicy {
  /** Swarm-wide tool permission policy. */
  tools?: ToolPolicySpec;
  maxStepsPerTurn?: number;
  /** An agent that is not ready this long after its spawn failed to start (default 30). */
  startupTimeoutSeconds?: number;
  lifecycle?: { ttlSeconds?: number; gcGraceSeconds?: number; maxLiveProcesses?: number };
  shutdown?: { gracePeriodSeconds?: number };
  /** Token and cost limits enforced by the orchestrator across all agents. */
  budget?: BudgetPolicy;
  /** How records reach the disk (issue 10; default `batch`). */
  durability?: {
    fsync?: 'always' | 'batch' | 'never';
    retention?: { runtimeEventsMaxBytes?: number; runtimeEventsMaxAgeHours?: number; inboxCompactLines?: number };
  };
  /** OS isolation of tool subprocesses for every agent (agents override it with `spec.sandbox`). */
  sandbox?: SandboxSpec;
  /** Which instances agents may message, and how long a chain of agent messages may grow. */
  interAgent?: { instanceKeys?: 'scoped' | 'any'; sharedInstanceKeys?: string[]; maxHops?: number; maxMessagesPerTrace?: number };
}
/** tokens = input + output tokens; cost in the budget's currency. */
export interface BudgetLimit {
  tokens?: number;
  cost?: number;
}
export interface BudgetPolicy {
  /** One turn from outside the swarm and every turn it causes in other agents (one trace). */
  perTurn?: BudgetLimit;
  /** One instance key (all agents of the swarm under that key), per UTC day. */
  perInstancePerDay?: BudgetLimit;
  perSwarmPerDay?: BudgetLimit;
  /** deny (default): the call fails with BUDGET_EXCEEDED; ask: a person decides (tool approvals' channel). */
  onExceeded?: 'deny' | 'ask';
  /** Currency of the `cost` limits (default: the one currency the swarm's priced models use). */
  currency?: string;
}
export interface SwarmSpec {
  entryAgent: ObjectRefLike;
  agents: Array<ObjectRefLike | RefItem>;
  instanceKey?: string;
  policy?: SwarmPolicy;
}

// ── Connector / Connection ─────────────────────────────────────────────────
export interface ConnectorEventSpec {
  name: string;
  properties?: Record<string, { type: 'string' | 'number' | 'boolean'; optional?: boolean }>;
}
export interface ConnectorSpec {
  entry: string;
  events: ConnectorEventSpec[];
}
export interface IngressRoute {
  agentRef?: ObjectRefLike;
  instanceKey?: string;
  instanceKeyProperty?: string;
  instanceKeyPrefix?: string;
}
export interface IngressRule {
  match?: { event?: string; properties?: Record<string, string | number | boolean> };
  route: IngressRoute;
}
export interface ConnectionSpec {
  connectorRef: ObjectRefLike;
  swarmRef?: ObjectRefLike;
  config?: Record<string, ValueSource>;
  secrets?: Record<string, ValueSource>;
  ingress?: { rules?: IngressRule[] };
}

// ── Package ────────────────────────────────────────────────────────────────
export interface PackageSpec {
  version?: string;
  description?: string;
  access?: 'public' | 'restricted';
  dependencies?: Array<{ name: string; version: string }>;
  registry?: { url: string };
}

export type ModelResource = Resource<'Model', ModelSpec>;
export type ToolResource = Resource<'Tool', ToolSpec>;
export type ExtensionResource = Resource<'Extension', ExtensionSpec>;
export type AgentResource = Resource<'Agent', AgentSpec>;
export type SwarmResource = Resource<'Swarm', SwarmSpec>;
export type ConnectorResource = Resource<'Connector', ConnectorSpec>;
export type ConnectionResource = Resource<'Connection', ConnectionSpec>;
export type PackageResource = Resource<'Package', PackageSpec>;

export type AnyResource =
  | ModelResource
  | ToolResource
  | ExtensionResource
  | AgentResource
  | SwarmResource
  | ConnectorResource
  | ConnectionResource
  | PackageResource;
