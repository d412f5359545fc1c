/**
 * AgentPlan: everything one agent process needs, resolved — model (with its key), system prompt
 * text, tools, and extensions in registration order with the built-ins attached implicitly
 * (ARCHITECTURE §5): `context-message` first unless listed, `required-tools-guard` when the agent
 * has requiredTools.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AgentPlan, ExtensionPlan, LoadedBundle, LoadedResource, ToolExportPlan, ToolPlan } from '../types/bundle.ts';
import type { JsonObject } from '../types/json.ts';
import { BASE_PACKAGE, type JsonSchemaObject, type ToolExportSpec, type ToolPolicyRule, type ToolPolicySpec } from '../types/resources.ts';
import { type AgentPromptFields, agentPromptFields } from './agent-prompt.ts';
import type { SandboxPlan } from '../types/sandbox.ts';
import { sandboxSpecValidator } from '../schemas/validators.ts';
import { problemAt } from './bundle-internals.ts';
import { resolveBundlePath } from './bundle-path.ts';
import { ConfigError } from './config-error.ts';
import { EnvIssues } from './env-issues.ts';
import { buildModelPlan } from './model-plan.ts';
import { asAgent, asExtension, asTool, assertLoadable, findBuiltin, findSwarm, resolveIn } from './plan-resolver.ts';
import { DEFAULT_SANDBOX, resolveSandbox } from './sandbox-plan.ts';

export const DEFAULT_ERROR_MESSAGE_LIMIT = 1000;
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 64 * 1024;
const CONTEXT_MESSAGE = 'context-message';
const REQUIRED_TOOLS_GUARD = 'required-tools-guard';
const TOOL_POLICY = 'tool-policy';

/**
 * The effective tool policy of an agent: the swarm's `policy.tools` plus the agent's own
 * `toolPolicy` (rules are unioned — the most restrictive match wins at run time — and the agent's
 * scalar settings override the swarm's). Undefined when neither is set.
 */
function toolPolicyConfig(swarm: ToolPolicySpec | undefined, agent: ToolPolicySpec | undefined): JsonObject | undefined {
  if (!swarm && !agent) return undefined;
  const tag = (rules: ToolPolicyRule[] | undefined, source: string): JsonObject[] =>
    (rules ?? []).map((rule) => ({ ...rule, ...(rule.args ? { args: { ...rule.args } } : {}), source }));
  const config: JsonObject = {
    default: agent?.default ?? swarm?.default ?? 'ask',
    rules: [...tag(swarm?.rules, 'swarm'), ...tag(agent?.rules, 'agent')],
  };
  const timeout = agent?.askTimeoutSeconds ?? swarm?.askTimeoutSeconds;
  if (timeout !== undefined) config.askTimeoutSeconds = timeout;
  return config;
}

/** Absolute entry path; a missing built-in entry still yields its intended path. */
function entryPath(resource: LoadedResource, entry: string): string {
  const result = resolveBundlePath(resource.bundleRoot, entry, 'entry');
  return result.ok ? result.path : resolve(resource.bundleRoot, entry);
}

/**
 * `config.sandbox` (from the Tool's spec.config or the agent's tool ref) is the runtime's, not the
 * tool's: it leaves `config` and becomes the tool's resolved sandbox (the load already checked it);
 * `timeoutMs` is the engine's limit per call (checked by check-tool-declarations), not a handler setting.
 */
function toolPlan(
  resource: LoadedResource,
  override: JsonObject | undefined,
  agentSandbox: SandboxPlan,
  env: Record<string, string | undefined>,
  issues: EnvIssues,
): ToolPlan {
  const tool = asTool(resource.resource);
  if (!tool) throw new Error(`invariant: ${resource.kind}/${resource.name} is not a Tool`);
  const { sandbox, timeoutMs, ...config } = { ...tool.spec.config, ...override };
  const isSandboxSpec = sandboxSpecValidator();
  const plan: ToolPlan = {
    name: resource.name,
    packageName: resource.packageName,
    errorMessageLimit: tool.spec.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT,
    ...(tool.spec.maxResultBytes !== undefined ? { maxResultBytes: tool.spec.maxResultBytes } : {}),
    exports: tool.spec.exports.map((spec, i) => exportPlan(resource, spec, i, env, issues)),
    config,
    sandbox: resolveSandbox(agentSandbox, isSandboxSpec(sandbox) ? sandbox : undefined),
  };
  if (tool.spec.entry !== undefined) plan.entryPath = entryPath(resource, tool.spec.entry);
  if (typeof timeoutMs === 'number') plan.timeoutMs = timeoutMs;
  return plan;
}

const EMPTY_PARAMETERS: JsonSchemaObject = { type: 'object', properties: {} };

/**
 * An export as the runtime gets it: `parameters` defaults to the empty object schema (tool spec
 * §6.1: a function without arguments), HTTP header ValueSources are read (a missing credential is a
 * missing required variable).
 */
function exportPlan(resource: LoadedResource, spec: ToolExportSpec, index: number, env: Record<string, string | undefined>, issues: EnvIssues): ToolExportPlan {
  const { http, ...declared } = spec;
  const rest = { ...declared, parameters: declared.parameters ?? EMPTY_PARAMETERS };
  if (http === undefined) return rest;
  const { headers, ...request } = http;
  if (headers === undefined) return { ...rest, http: request };
  const resolved: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = typeof value === 'string' ? value : issues.read(value, env, resource, ['spec', 'exports', index, 'http', 'headers', name], true, `header ${name} of export ${spec.name}`);
    if (text !== undefined) resolved[name] = text;
  }
  return { ...rest, http: { ...request, headers: resolved } };
}

function extensionPlan(resource: LoadedResource, override: JsonObject | undefined): ExtensionPlan {
  const extension = asExtension(resource.resource);
  if (!extension) throw new Error(`invariant: ${resource.kind}/${resource.name} is not an Extension`);
  return {
    name: resource.name,
    packageName: resource.packageName,
    entryPath: entryPath(resource, extension.spec.entry),
    config: { ...extension.spec.config, ...override },
  };
}

function systemPrompt(resource: LoadedResource, prompt: AgentPromptFields | undefined): string | undefined {
  if (prompt?.text !== undefined) return prompt.text;
  if (prompt?.systemRef === undefined) return undefined;
  const result = resolveBundlePath(resource.bundleRoot, prompt.systemRef, 'file');
  if (!result.ok) {
    throw new ConfigError([problemAt(resource, ['spec', prompt.field, 'systemRef'], result.reason === 'escape' ? 'E_CONFIG_PATH_ESCAPE' : 'E_CONFIG_SYSTEM_REF_NOT_FOUND', `systemRef ${result.message}`)]);
  }
  return readFileSync(result.path, 'utf8');
}

/** Builds the plan, recording missing env vars in `issues` instead of throwing for them. */
export function planAgent(bundle: LoadedBundle, swarmName: string, agentName: string, env: Record<string, string | undefined>, issues: EnvIssues): AgentPlan {
  assertLoadable(bundle);
  const swarm = findSwarm(bundle, swarmName);
  const members = swarm.spec.agents.map((item, i) => resolveIn(bundle, swarm.resource, item, ['spec', 'agents', i]).target);
  const resource = members.find((m) => m.name === agentName);
  const agent = resource ? asAgent(resource.resource) : undefined;
  if (!resource || !agent) {
    throw new ConfigError([
      problemAt(swarm.resource, ['spec', 'agents'], 'E_CONFIG_AGENT_NOT_IN_SWARM', `agent "${agentName}" is not in Swarm "${swarmName}"`, `agents: ${members.map((m) => m.name).join(', ')}`),
    ]);
  }
  const { spec } = agent;
  const model = resolveIn(bundle, resource, spec.modelConfig.modelRef, ['spec', 'modelConfig', 'modelRef']).target;
  const sandbox = resolveSandbox(DEFAULT_SANDBOX, swarm.spec.policy?.sandbox, spec.sandbox);
  const tools = (spec.tools ?? []).map((item, i) => {
    const { target, config } = resolveIn(bundle, resource, item, ['spec', 'tools', i]);
    return toolPlan(target, config, sandbox, env, issues);
  });
  const extensions = (spec.extensions ?? []).map((item, i) => {
    const { target, config } = resolveIn(bundle, resource, item, ['spec', 'extensions', i]);
    return extensionPlan(target, config);
  });

  const requiredTools = spec.requiredTools ?? [];
  if (requiredTools.length > 0) {
    const listed = extensions.find((e) => e.name === REQUIRED_TOOLS_GUARD);
    if (listed) {
      if (!Array.isArray(listed.config.requiredTools) || listed.config.requiredTools.length === 0) listed.config.requiredTools = [...requiredTools];
    } else {
      const guard = findBuiltin(bundle, 'Extension', BASE_PACKAGE, REQUIRED_TOOLS_GUARD);
      if (guard) extensions.push(extensionPlan(guard, { requiredTools: [...requiredTools] }));
    }
  }
  const policy = toolPolicyConfig(swarm.spec.policy?.tools, spec.toolPolicy);
  if (policy) {
    const listed = extensions.find((e) => e.name === TOOL_POLICY);
    if (listed) listed.config = { ...listed.config, ...policy };
    else {
      const builtin = findBuiltin(bundle, 'Extension', BASE_PACKAGE, TOOL_POLICY);
      if (builtin) extensions.push(extensionPlan(builtin, policy));
    }
  }
  if (!extensions.some((e) => e.name === CONTEXT_MESSAGE)) {
    const contextMessage = findBuiltin(bundle, 'Extension', BASE_PACKAGE, CONTEXT_MESSAGE);
    if (contextMessage) extensions.unshift(extensionPlan(contextMessage, undefined));
  }

  const plan: AgentPlan = {
    name: resource.name,
    packageName: resource.packageName,
    bundleRoot: resource.bundleRoot,
    model: buildModelPlan(model, env, issues),
    modelParams: spec.modelConfig.params ?? {},
    tools,
    extensions,
    requiredTools,
    maxToolResultBytes: spec.maxToolResultBytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES,
    sandbox,
  };
  const prompt = systemPrompt(resource, agentPromptFields(spec));
  if (prompt !== undefined) plan.systemPrompt = prompt;
  return plan;
}

export function buildAgentPlan(bundle: LoadedBundle, swarmName: string, agentName: string, env: Record<string, string | undefined>): AgentPlan {
  const issues = new EnvIssues();
  const plan = planAgent(bundle, swarmName, agentName, env, issues);
  issues.throwIfRequiredMissing();
  return plan;
}
