/**
 * Loads the agent's extensions in declaration order and awaits each `register(api, config)` in
 * sequence (SPEC.md §4.2). A module that cannot be imported or has no `register` export is
 * E_EXT_LOAD; a `register` that throws is E_EXT_INIT. Both name the extension and its file.
 */
import type { ExtensionPlan } from '../../shared/types/bundle.ts';
import type { ExtensionApi, ExtensionModule } from '../../shared/types/extensions.ts';
import { EngineError, errorMessageOf } from '../engine/engine-error.ts';
import { importEntryModule } from '../tools/entry-module.ts';

export async function loadExtension(plan: ExtensionPlan, api: ExtensionApi): Promise<void> {
  let mod: unknown;
  try {
    mod = await importEntryModule(plan.entryPath);
  } catch (error) {
    throw new EngineError({
      code: 'E_EXT_LOAD',
      message: `Extension '${plan.name}': cannot load entry module ${plan.entryPath}: ${errorMessageOf(error)}`,
      file: plan.entryPath,
      suggestion: 'Check that the entry path in the Extension resource points to a module Bun can import.',
      cause: error,
    });
  }
  const register = registerOf(mod);
  if (register === undefined) {
    throw new EngineError({
      code: 'E_EXT_LOAD',
      message: `Extension '${plan.name}': entry module ${plan.entryPath} has no 'register' function export`,
      file: plan.entryPath,
      suggestion: 'Export it: export async function register(api, config) { … }',
    });
  }
  try {
    await register(api, plan.config);
  } catch (error) {
    throw new EngineError({
      code: 'E_EXT_INIT',
      message: `Extension '${plan.name}': register() failed: ${errorMessageOf(error)}`,
      file: plan.entryPath,
      suggestion: `Fix register() in ${plan.entryPath} or its config; the agent starts again after 'goondan restart' or, with --watch, when the bundle is saved.`,
      cause: error,
    });
  }
}

function registerOf(mod: unknown): ExtensionModule['register'] | undefined {
  if (typeof mod !== 'object' || mod === null || !('register' in mod)) return undefined;
  const register = mod.register;
  return isRegister(register) ? register : undefined;
}

function isRegister(value: unknown): value is ExtensionModule['register'] {
  return typeof value === 'function';
}
