/**
 * Loads a Tool resource's handlers (tool spec §4.3, §15): exports declared as `http` requests get
 * the built-in HTTP handler; the others come from the entry module, loaded with Bun and checked
 * against the declaration — a `handlers` object export, a function for every declared export, and
 * no handler that is not declared. The module may also export `evaluatePolicy` (seed 004 §6).
 * Every failure names the entry file.
 */
import type { ToolPlan } from '../../shared/types/bundle.ts';
import type { ToolHandler, ToolPolicyEvaluator } from '../../shared/types/tools.ts';
import { existsSync } from 'node:fs';
import { EngineError, errorMessageOf } from '../engine/engine-error.ts';
import { importEntryModule } from './entry-module.ts';

export interface LoadedTool {
  handlers: Record<string, ToolHandler>;
  evaluatePolicy?: ToolPolicyEvaluator;
}

/**
 * Loaded once per plan object: a primed spare's rehearsal and the instance it becomes share the same
 * plans (`asPrimed`), and checking a loaded module again took ~0.35 ms of a new instance's start.
 * Handlers are plain functions of their module; nothing here holds engine state.
 */
const loadedTools = new WeakMap<ToolPlan, Promise<LoadedTool>>();

export function loadToolHandlers(plan: ToolPlan): Promise<LoadedTool> {
  let loaded = loadedTools.get(plan);
  if (!loaded) {
    loaded = loadFresh(plan);
    loadedTools.set(plan, loaded);
  }
  return loaded;
}

async function loadFresh(plan: ToolPlan): Promise<LoadedTool> {
  const handlers: Record<string, ToolHandler> = {};
  const httpExports = plan.exports.filter((e) => e.http !== undefined);
  if (httpExports.length > 0) {
    // Loaded only by agents that have HTTP tools.
    const { httpExportHandler } = await import('./http/http-export-handler.ts');
    for (const exp of httpExports) if (exp.http) handlers[exp.name] = httpExportHandler(`${plan.name}__${exp.name}`, exp.http);
  }
  const coded = plan.exports.filter((e) => e.http === undefined).map((e) => e.name);
  if (plan.entryPath === undefined) {
    if (coded.length === 0) return { handlers };
    throw new EngineError({
      code: 'E_TOOL_LOAD',
      message: `Tool '${plan.name}' has no entry module, but export(s) ${coded.join(', ')} declare no http request`,
      suggestion: 'Add spec.entry with handlers for them, or declare an http request for each.',
    });
  }
  const entryPath = plan.entryPath;
  let mod: unknown;
  try {
    mod = await importEntryModule(entryPath);
  } catch (error) {
    throw importFailure(plan.name, entryPath, error);
  }
  const evaluatePolicy = exportedEvaluator(plan.name, entryPath, mod);
  const exported = typeof mod === 'object' && mod !== null && 'handlers' in mod ? mod.handlers : undefined;
  if (exported === undefined && coded.length === 0) return evaluatePolicy ? { handlers, evaluatePolicy } : { handlers };
  if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
    throw new EngineError({
      code: 'E_TOOL_HANDLERS_MISSING',
      message: `Tool '${plan.name}': entry module ${entryPath} has no 'handlers' object export`,
      file: entryPath,
      suggestion: `Export the handlers by export name: export const handlers = { ${coded.map((name) => `'${name}': async (ctx, input) => …`).join(', ')} };`,
    });
  }
  for (const name of coded) {
    const handler: unknown = Reflect.get(exported, name);
    if (handler === undefined) {
      throw new EngineError({
        code: 'E_TOOL_HANDLER_MISSING',
        message: `Tool '${plan.name}': export '${name}' is declared but ${entryPath} has no handlers['${name}']`,
        file: entryPath,
        suggestion: `Add handlers['${name}'] to the entry module or remove the export from the Tool resource.`,
      });
    }
    if (!isToolHandler(handler)) {
      throw new EngineError({
        code: 'E_TOOL_HANDLER_INVALID',
        message: `Tool '${plan.name}': handlers['${name}'] in ${entryPath} is not a function`,
        file: entryPath,
      });
    }
    handlers[name] = handler;
  }
  const undeclared = Object.keys(exported).filter((name) => !coded.includes(name));
  if (undeclared.length > 0) {
    const http = undeclared.filter((name) => httpExports.some((e) => e.name === name));
    throw new EngineError({
      code: 'E_TOOL_HANDLER_UNDECLARED',
      message: `Tool '${plan.name}': ${entryPath} has handlers not declared in spec.exports: ${undeclared.join(', ')}${http.length > 0 ? ` (${http.join(', ')} declare an http request, which answers them)` : ''}`,
      file: entryPath,
      suggestion: `Declare them under spec.exports (name, description, parameters) or remove them from handlers.`,
    });
  }
  return evaluatePolicy ? { handlers, evaluatePolicy } : { handlers };
}

function exportedEvaluator(toolName: string, entryPath: string, mod: unknown): ToolPolicyEvaluator | undefined {
  const value = typeof mod === 'object' && mod !== null && 'evaluatePolicy' in mod ? mod.evaluatePolicy : undefined;
  if (value === undefined) return undefined;
  if (!isPolicyEvaluator(value)) {
    throw new EngineError({
      code: 'E_TOOL_HANDLER_INVALID',
      message: `Tool '${toolName}': evaluatePolicy in ${entryPath} is not a function`,
      file: entryPath,
      suggestion: 'export function evaluatePolicy(args, ctx) { return { action: "ask", reason: "…", preview: "…" }; }',
    });
  }
  return value;
}

function isToolHandler(value: unknown): value is ToolHandler {
  return typeof value === 'function';
}

function isPolicyEvaluator(value: unknown): value is ToolPolicyEvaluator {
  return typeof value === 'function';
}

/** E_TOOL_LOAD: an entry file that is not there, or a module that threw while Bun imported it (docs/errors/tool.md). */
function importFailure(tool: string, entryPath: string, error: unknown): EngineError {
  if (!existsSync(entryPath)) {
    return new EngineError({
      code: 'E_TOOL_LOAD',
      message: `Tool '${tool}': entry module ${entryPath} does not exist`,
      file: entryPath,
      suggestion: `Point spec.entry of Tool/${tool} at the module (a path relative to the bundle root), then \`goondan restart\`.`,
      cause: error,
    });
  }
  return new EngineError({
    code: 'E_TOOL_LOAD',
    message: `Tool '${tool}': entry module ${entryPath} threw while importing: ${errorMessageOf(error)}`,
    file: entryPath,
    suggestion: `Run \`bun ${entryPath}\` to see the error (\`goondan validate\` points at syntax errors); fix the module, then \`goondan restart\`.`,
    cause: error,
  });
}
