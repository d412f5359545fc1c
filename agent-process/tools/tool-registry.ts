/**
 * The Tool Registry (tool spec §3): every executable handler of this agent — the exports of its
 * Tool resources plus tools registered by extensions. A later registration of a name wins
 * (SPEC.md §4.3).
 */
import type { JsonObject } from '../../shared/types/json.ts';
import type { ToolPlan } from '../../shared/types/bundle.ts';
import type { JsonSchemaObject } from '../../shared/types/resources.ts';
import type { SandboxPlan } from '../../shared/types/sandbox.ts';
import type { ToolCatalogItem, ToolHandler, ToolPolicyEvaluator } from '../../shared/types/tools.ts';
import { EngineError } from '../engine/engine-error.ts';
import { validatorFor } from './args-validation.ts';
import type { LoadedTool } from './tool-loader.ts';
import { buildToolName, parseToolName } from './tool-name.ts';
import { DEFAULT_ERROR_MESSAGE_LIMIT } from './truncate-error-message.ts';

export interface RegisteredTool {
  item: ToolCatalogItem;
  handler: ToolHandler;
  errorMessageLimit: number;
  /** The tool's own result bound (Tool.spec.maxResultBytes), when it sets one. */
  maxResultBytes?: number;
  /** `ctx.config` for the handler. */
  config: JsonObject;
  /** The sandbox of a Tool resource's processes; extension tools use the agent's. */
  sandbox?: SandboxPlan;
  origin: 'config' | 'extension';
  /** The export name (`exec` of `bash__exec`), for `evaluatePolicy`. */
  exportName: string;
  /** Per-call limits declared by the export (and, for timeoutMs, the agent's tool ref). */
  limits: CallLimits;
  /** The tool module's own permission check (seed 004 §6). */
  evaluatePolicy?: ToolPolicyEvaluator;
}

export interface CallLimits {
  /** The engine's time limit per call; the executor's default when absent. */
  timeoutMs?: number;
  /** The argument holding the call's own, possibly longer, time limit. */
  timeoutFromArg?: string;
  maxCallsPerTurn?: number;
}

/** Tool spec §5.2: what every model provider accepts in a function name (the length is checked per provider). */
const TOOL_NAME_CHARACTERS = /^[A-Za-z0-9_-]+$/;

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  /** Names in first-registration order (the catalog keeps this order). */
  private readonly order: string[] = [];

  registerToolPlan(plan: ToolPlan, loaded: LoadedTool): void {
    for (const exp of plan.exports) {
      const handler = loaded.handlers[exp.name];
      if (handler === undefined) continue; // the loader has already rejected missing handlers
      const item: ToolCatalogItem = {
        name: buildToolName(plan.name, exp.name),
        description: exp.description,
        parameters: exp.parameters,
        source: { type: 'config', name: plan.name },
        displayName: exp.displayName,
        icon: exp.icon,
        summary: exp.summary,
        returns: exp.returns,
      };
      if (exp.readOnly !== undefined) item.readOnly = exp.readOnly && !widenedByConfig(exp.readOnlyUnlessConfig, plan.config);
      if (exp.idempotent !== undefined) item.idempotent = exp.idempotent;
      // The agent's tools[].config.timeoutMs (plan.timeoutMs) wins over the export's own.
      const limits: CallLimits = { timeoutMs: plan.timeoutMs ?? exp.timeoutMs, timeoutFromArg: exp.timeoutFromArg, maxCallsPerTurn: exp.maxCallsPerTurn };
      const tool: RegisteredTool = {
        item,
        handler,
        errorMessageLimit: plan.errorMessageLimit,
        ...(plan.maxResultBytes !== undefined ? { maxResultBytes: plan.maxResultBytes } : {}),
        config: plan.config,
        sandbox: plan.sandbox,
        origin: 'config',
        exportName: exp.name,
        limits,
      };
      if (loaded.evaluatePolicy) tool.evaluatePolicy = loaded.evaluatePolicy;
      this.put(tool);
    }
  }

  /** `api.tools.register(item, handler)` of extension `owner`. */
  registerExtensionTool(owner: string, item: ToolCatalogItem, handler: ToolHandler): void {
    if (typeof item?.name !== 'string' || parseToolName(item.name) === null || !TOOL_NAME_CHARACTERS.test(item.name)) {
      throw new EngineError({
        code: 'E_TOOL_INVALID_NAME',
        message: `Extension '${owner}' registered a tool named '${String(item?.name)}'; tool names must be '<resource>__<export>' with exactly one '__', of the characters A-Z a-z 0-9 _ - only (tool spec §5)`,
        suggestion: `Name it like '${owner}__action'.`,
      });
    }
    const schemaProblem = item.parameters === undefined ? undefined : schemaProblemOf(item.parameters);
    if (schemaProblem !== undefined) {
      throw new EngineError({
        code: 'E_TOOL_INVALID_SCHEMA',
        message: `Extension '${owner}' registered tool '${item.name}' with invalid parameters: ${schemaProblem}`,
        suggestion: "parameters must be a JSON Schema object: { type: 'object', properties: { … }, required: [ … ] }",
      });
    }
    if (typeof handler !== 'function') {
      throw new EngineError({
        code: 'E_TOOL_HANDLER_INVALID',
        message: `Extension '${owner}' registered tool '${item.name}' without a handler function`,
      });
    }
    const copy: ToolCatalogItem = { ...item, source: item.source ?? { type: 'extension', name: owner } };
    const exportName = parseToolName(item.name)?.exportName ?? item.name;
    this.put({ item: copy, handler, errorMessageLimit: DEFAULT_ERROR_MESSAGE_LIMIT, config: {}, origin: 'extension', exportName, limits: {} });
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  /** Every registered tool in registration order. */
  list(): RegisteredTool[] {
    const out: RegisteredTool[] = [];
    for (const name of this.order) {
      const tool = this.tools.get(name);
      if (tool) out.push(tool);
    }
    return out;
  }

  private put(tool: RegisteredTool): void {
    if (!this.tools.has(tool.item.name)) this.order.push(tool.item.name);
    this.tools.set(tool.item.name, tool);
  }
}

/**
 * A read-only export stops being read-only for an agent whose tool config opens it up (e.g.
 * http-fetch's `allow`, which lets `get` reach private addresses): `Tool.spec.exports[].readOnlyUnlessConfig`.
 */
function widenedByConfig(keys: readonly string[] | undefined, config: JsonObject): boolean {
  return (keys ?? []).some((key) => {
    const value = config[key];
    if (value === undefined || value === null || value === false || value === '') return false;
    if (Array.isArray(value)) return value.length > 0;
    return typeof value !== 'object' || Object.keys(value).length > 0;
  });
}

/** Extension tool schemas did not pass the config plane: check them here (the model gets them verbatim). */
function schemaProblemOf(parameters: JsonSchemaObject): string | undefined {
  // Typed, but it comes from extension code at run time: check the shape anyway.
  const shape: unknown = parameters;
  if (typeof shape !== 'object' || shape === null || Array.isArray(shape)) return 'not an object';
  if (parameters.type !== 'object') return "the top-level type must be 'object'";
  try {
    // The first call compiles (or loads) the validator: a schema ajv rejects throws here, at registration.
    validatorFor(parameters)({});
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

