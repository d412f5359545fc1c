/**
 * Loads a Tool resource's entry module with Bun and checks it against the declaration (tool spec
 * §4.3, §15): a `handlers` object export, a function for every declared export, and no handler
 * that is not declared. Every failure names the entry file.
 */
import type { ToolPlan } from '../../shared/types/bundle.ts';
import type { ToolHandler } from '../../shared/types/tools.ts';
import { EngineError, errorMessageOf } from '../engine/engine-error.ts';

export async function loadToolHandlers(plan: ToolPlan): Promise<Record<string, ToolHandler>> {
  let mod: unknown;
  try {
    mod = await import(plan.entryPath);
  } catch (error) {
    throw new EngineError({
      code: 'E_TOOL_LOAD',
      message: `Tool '${plan.name}': cannot load entry module ${plan.entryPath}: ${errorMessageOf(error)}`,
      file: plan.entryPath,
      suggestion: 'Check that the entry path in the Tool resource points to a module Bun can import.',
      cause: error,
    });
  }
  const handlers = typeof mod === 'object' && mod !== null && 'handlers' in mod ? mod.handlers : undefined;
  if (typeof handlers !== 'object' || handlers === null || Array.isArray(handlers)) {
    throw new EngineError({
      code: 'E_TOOL_HANDLERS_MISSING',
      message: `Tool '${plan.name}': entry module ${plan.entryPath} has no 'handlers' object export`,
      file: plan.entryPath,
      suggestion: `Export the handlers by export name: export const handlers = { ${plan.exports.map((e) => `'${e.name}': async (ctx, input) => …`).join(', ')} };`,
    });
  }
  const declared = new Set(plan.exports.map((e) => e.name));
  const result: Record<string, ToolHandler> = {};
  for (const name of declared) {
    const handler: unknown = Reflect.get(handlers, name);
    if (handler === undefined) {
      throw new EngineError({
        code: 'E_TOOL_HANDLER_MISSING',
        message: `Tool '${plan.name}': export '${name}' is declared but ${plan.entryPath} has no handlers['${name}']`,
        file: plan.entryPath,
        suggestion: `Add handlers['${name}'] to the entry module or remove the export from the Tool resource.`,
      });
    }
    if (!isToolHandler(handler)) {
      throw new EngineError({
        code: 'E_TOOL_HANDLER_INVALID',
        message: `Tool '${plan.name}': handlers['${name}'] in ${plan.entryPath} is not a function`,
        file: plan.entryPath,
      });
    }
    result[name] = handler;
  }
  const undeclared = Object.keys(handlers).filter((name) => !declared.has(name));
  if (undeclared.length > 0) {
    throw new EngineError({
      code: 'E_TOOL_HANDLER_UNDECLARED',
      message: `Tool '${plan.name}': ${plan.entryPath} has handlers not declared in spec.exports: ${undeclared.join(', ')}`,
      file: plan.entryPath,
      suggestion: `Declare them under spec.exports (name, description, parameters) or remove them from handlers.`,
    });
  }
  return result;
}

function isToolHandler(value: unknown): value is ToolHandler {
  return typeof value === 'function';
}
