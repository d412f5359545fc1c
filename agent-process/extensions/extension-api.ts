/**
 * The ExtensionApi handed to `register(api, config)` (SPEC.md §4.3) — the only surface an extension
 * gets: pipeline middleware, dynamic tools, its own JSON state, the event bus, a logger, a close
 * hook, the agent's sandbox (for processes it starts) and (when the shell provides one) human
 * approvals.
 */
import type { ExtensionApi } from '../../shared/types/extensions.ts';
import type { JsonValue } from '../../shared/types/json.ts';
import type { ProcessSandbox } from '../../shared/types/sandbox.ts';
import type { Logger, ToolCatalogItem, ToolHandler } from '../../shared/types/tools.ts';
import type { ChainName, MiddlewareOf, PipelineRegistry } from '../engine/pipeline-registry.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import type { EventBus } from './event-bus.ts';
import type { ExtensionStateStore } from './extension-state.ts';

export type CloseHandler = () => void | Promise<void>;

export interface ExtensionApiDeps {
  name: string;
  pipeline: PipelineRegistry;
  registry: ToolRegistry;
  states: ExtensionStateStore;
  bus: EventBus;
  logger: Logger;
  /** Where `api.onClose` handlers are collected (run by engine.close()). */
  closeHandlers: Array<{ extension: string; handler: CloseHandler }>;
  approvals?: ExtensionApi['approvals'];
  sandbox: ProcessSandbox;
}

export function createExtensionApi(deps: ExtensionApiDeps): ExtensionApi {
  const { name, pipeline, registry, states, bus } = deps;
  const register = <K extends ChainName>(type: K, fn: MiddlewareOf<K>, options?: { priority?: number }): void =>
    pipeline.register(name, type, fn, options?.priority ?? 0);
  return {
    name,
    pipeline: { register },
    tools: {
      register: (item: ToolCatalogItem, handler: ToolHandler) => registry.registerExtensionTool(name, item, handler),
    },
    state: {
      get: async () => states.get(name),
      set: async (value: JsonValue) => states.set(name, value),
    },
    events: {
      on: (event, handler) => bus.on(event, handler),
      emit: (event, payload) => bus.emit(event, payload ?? null),
    },
    logger: deps.logger,
    onClose: (handler: CloseHandler) => {
      if (typeof handler !== 'function') throw new TypeError(`Extension '${name}': onClose needs a function`);
      deps.closeHandlers.push({ extension: name, handler });
    },
    sandbox: deps.sandbox,
    ...(deps.approvals ? { approvals: deps.approvals } : {}),
  };
}
