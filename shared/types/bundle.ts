/**
 * What the config plane hands to the rest of the system: a loaded bundle (every resource with its
 * source position) and the resolved, self-contained plans built from it. The engine and the
 * orchestrator only ever consume plans; ref resolution and ValueSource lookup happen once, here.
 */
import type { FsyncMode } from '../durability/fsync-policy.ts';
import type { JsonObject } from './json.ts';
import type {
  AnyResource,
  BudgetLimit,
  ConnectorEventSpec,
  HttpExportSpec,
  IngressRule,
  ModelParams,
  ModelPricing,
  ModelProvider,
  ModelRateLimit,
  ModelSpec,
  JsonSchemaObject,
  ResourceKind,
  ToolExportSpec,
} from './resources.ts';
import type { SandboxPlan } from './sandbox.ts';

/** Where a resource (or a problem) sits in the source files. Lines and columns are 1-based. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export interface LoadedResource {
  resource: AnyResource;
  kind: ResourceKind;
  name: string;
  /** Package the resource belongs to (`@goondan/base` for built-ins, the bundle's Package name or '' for the user bundle). */
  packageName: string;
  /** Directory that `entry`/`systemRef` paths resolve against (SPEC.md §1.3 "Bundle Root"). */
  bundleRoot: string;
  /** Absolute path of the YAML file and the document's position. */
  source: SourceLocation & { docIndex: number };
}

/** One problem found while loading or validating (ARCHITECTURE §6). */
export interface ConfigProblem {
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
  /** JSON path inside the document, e.g. `spec.tools[0]`. */
  path: string;
  suggestion?: string;
  helpUrl?: string;
}

export interface LoadedBundle {
  /** Directory of the user's bundle (where goondan.yaml or the given YAML file lives). */
  rootDir: string;
  /** The files that were read, absolute paths, in load order (used by `--watch`). */
  files: string[];
  /** Package name of the user bundle ('' without a Package document). */
  packageName: string;
  resources: LoadedResource[];
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
}

// ── Plans ──────────────────────────────────────────────────────────────────

export interface ModelPlan {
  name: string;
  provider: ModelProvider;
  model: string;
  endpoint?: string;
  /** Resolved from the ValueSource; never logged. */
  apiKey?: string;
  options: JsonObject;
  capabilities: NonNullable<ModelSpec['capabilities']>;
  pricing?: ModelPricing;
  rateLimit?: ModelRateLimit;
}

/** An export's HTTP request with its header ValueSources resolved (never logged). */
export type HttpRequestPlan = Omit<HttpExportSpec, 'headers'> & { headers?: Record<string, string> };
/** An export as the runtime gets it: `parameters` always set (the empty object schema by default). */
export type ToolExportPlan = Omit<ToolExportSpec, 'http' | 'parameters'> & { parameters: JsonSchemaObject; http?: HttpRequestPlan };

export interface ToolPlan {
  /** Tool resource name: the prefix of every exported tool name. */
  name: string;
  packageName: string;
  /** Absolute path of the entry module; absent when every export declares `http`. */
  entryPath?: string;
  errorMessageLimit: number;
  /** The tool's own result bound, when it sets one (else the agent's). */
  maxResultBytes?: number;
  exports: ToolExportPlan[];
  /** Tool `spec.config` with the Agent's `tools[].config` shallow-merged over it, minus `sandbox` and `timeoutMs`. */
  config: JsonObject;
  /** The agent's sandbox with the merged config's `sandbox` laid over it field by field. */
  sandbox: SandboxPlan;
  /** The engine's time limit per call for this agent (`timeoutMs` of that merged config); wins over the exports' own. */
  timeoutMs?: number;
}

export interface ExtensionPlan {
  name: string;
  packageName: string;
  entryPath: string;
  /** Extension `spec.config` with the Agent's `extensions[].config` shallow-merged over it. */
  config: JsonObject;
}

export interface AgentPlan {
  name: string;
  packageName: string;
  bundleRoot: string;
  /** `prompt.system`, or the text of `prompt.systemRef` (materialised by the config plane). */
  systemPrompt?: string;
  model: ModelPlan;
  modelParams: ModelParams;
  tools: ToolPlan[];
  extensions: ExtensionPlan[];
  requiredTools: string[];
  /** Tool results larger than this many bytes are cut in the conversation and saved in the workspace. */
  maxToolResultBytes: number;
  /** Swarm `policy.sandbox` with the agent's `spec.sandbox` over it (tools may narrow or widen it per tool). */
  sandbox: SandboxPlan;
}

export interface SwarmPlan {
  name: string;
  /** `spec.instanceKey ?? name`; names the workspace. */
  instanceKey: string;
  /** Deterministic slug of instanceKey (SPEC.md §7). */
  workspaceId: string;
  entryAgent: string;
  agents: string[];
  maxStepsPerTurn: number;
  shutdownGracePeriodMs: number;
  /** Spawn → ready deadline of an agent process (E_AGENT_START_TIMEOUT after it). */
  startupTimeoutMs: number;
  /** `policy.durability` with its defaults (`fsync: batch`, retention in rotating-log.ts). */
  durability: DurabilityPlan;
  /** Instance lifecycle (SPEC.md §1.2 `policy.lifecycle`): when idle instances stop and their state goes. */
  lifecycle: LifecyclePlan;
  /** `policy.budget` with its defaults; absent when the swarm sets no limit. */
  budget?: BudgetPlan;
  /** `policy.interAgent` with its defaults (shared/inter-agent-scope.ts). */
  interAgent: InterAgentPlan;
}

export interface InterAgentPlan {
  /** `scoped`: an agent reaches its own instance key, keys under and above it, and the shared keys; `any`: every key. */
  instanceKeys: 'scoped' | 'any';
  sharedInstanceKeys: string[];
  /** An agent message this many messages away from the outside event that started the chain is refused. */
  maxHops: number;
  /** Agent messages one outside event may cause in all (its trace), fan-outs included. */
  maxMessagesPerTrace: number;
}

export interface BudgetPlan {
  perTurn?: BudgetLimit;
  perInstancePerDay?: BudgetLimit;
  perSwarmPerDay?: BudgetLimit;
  onExceeded: 'deny' | 'ask';
  /** Currency of the cost limits; absent when no model of the swarm is priced. */
  currency?: string;
}

export interface DurabilityPlan {
  fsync: FsyncMode;
  retention: { runtimeEventsMaxBytes: number; runtimeEventsMaxAgeMs: number; inboxCompactLines: number };
}

export interface LifecyclePlan {
  /** Idle this long → passivated (0 = never). */
  ttlMs: number;
  /** Idle this long → state deleted (absent = keep forever). */
  gcGraceMs?: number;
  /** Absent = derived by the daemon from free memory and the measured process size. */
  maxLiveProcesses?: number;
}

export interface ConnectionPlan {
  name: string;
  connectorName: string;
  connectorEntryPath: string;
  events: ConnectorEventSpec[];
  swarmName: string;
  config: Record<string, string>;
  /** Resolved secrets; never logged. */
  secrets: Record<string, string>;
  /** Ingress rules with `route.agentRef` already resolved to an agent name. */
  rules: Array<{ match?: IngressRule['match']; route: Omit<IngressRule['route'], 'agentRef'> & { agent?: string } }>;
}
