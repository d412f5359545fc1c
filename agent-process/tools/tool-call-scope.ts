/**
 * Attributing stray rejections to the tool call that created them (issue: an un-awaited `fetch`
 * that fails must not end the agent process). Each handler runs in an AsyncLocalStorage scope;
 * Bun has no async_hooks, so the promises created in a scope are remembered where they are made:
 * `Promise.prototype.then` (also behind `catch`/`finally`), `Promise.reject` and `fetch`.
 * An unhandled rejection then belongs to
 *   1. the scope that created the rejected promise, else
 *   2. the one tool call running at that moment, else
 *   3. nobody (or several calls at once) — see `attribute`.
 * While the call runs, its rejection becomes that call's error result; after it returned, it is
 * logged with the call id and the process goes on. Promises that native code creates outside
 * these three entry points (e.g. an un-awaited async function) fall back to rule 2.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../../shared/types/tools.ts';

export interface ToolCallScope {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The handler settled; a later rejection can only be logged. */
  done: boolean;
  /** Ends the running call with this rejection (no effect once done). */
  fail(reason: unknown): void;
}

export type Attribution =
  | { kind: 'call'; scope: ToolCallScope }
  | { kind: 'calls'; scopes: ToolCallScope[] }
  | { kind: 'none' };

/** Made by the first tool call: until then no promise can belong to one, and node:async_hooks stays unloaded. */
let storage: AsyncLocalStorage<ToolCallScope> | undefined;
const creators = new WeakMap<object, ToolCallScope>();
const running = new Set<ToolCallScope>();
let installed = false;

/** Runs `fn` (a tool handler) inside `scope`. */
export function runInToolCallScope<T>(scope: ToolCallScope, fn: () => Promise<T>): Promise<T> {
  running.add(scope);
  // require() is untyped: this is the module's own declared type.
  storage ??= new (require('node:async_hooks') as typeof import('node:async_hooks')).AsyncLocalStorage<ToolCallScope>();
  return storage.run(scope, fn).finally(() => {
    scope.done = true;
    running.delete(scope);
  });
}

/** Who owns an unhandled rejection of `promise` (or, without one, an uncaught exception thrown now). */
export function attribute(promise: unknown): Attribution {
  const creator = (typeof promise === 'object' && promise !== null ? creators.get(promise) : undefined) ?? storage?.getStore();
  if (creator) return { kind: 'call', scope: creator };
  const calls = [...running];
  const only = calls[0];
  if (calls.length === 1 && only) return { kind: 'call', scope: only };
  return calls.length > 1 ? { kind: 'calls', scopes: calls } : { kind: 'none' };
}

/** Patches the promise entry points once per process (agent processes only). */
export function installToolCallScopes(): void {
  if (installed) return;
  installed = true;
  const remember = (value: unknown): void => {
    const scope = storage?.getStore();
    if (scope && typeof value === 'object' && value !== null) creators.set(value, scope);
  };
  const originalThen = Promise.prototype.then;
  Reflect.set(Promise.prototype, 'then', function then(this: Promise<unknown>, onFulfilled?: unknown, onRejected?: unknown): unknown {
    const next: unknown = Reflect.apply(originalThen, this, [onFulfilled, onRejected]);
    remember(next);
    return next;
  });
  const originalReject = Promise.reject;
  Reflect.set(Promise, 'reject', function reject(this: PromiseConstructor, reason?: unknown): unknown {
    const rejected: unknown = Reflect.apply(originalReject, this, [reason]);
    remember(rejected);
    return rejected;
  });
  const originalFetch = globalThis.fetch;
  const scopedFetch = (...args: Parameters<typeof fetch>): ReturnType<typeof fetch> => {
    const response = originalFetch(...args);
    remember(response);
    return response;
  };
  globalThis.fetch = Object.assign(scopedFetch, { preconnect: originalFetch.preconnect });
}

/**
 * The agent process's `onUncaught`: a stray rejection or exception of tool code fails (or, once it
 * returned, is logged against) its call and the process goes on; one that belongs to no tool
 * call is a defect elsewhere and ends the process (the orchestrator restarts it).
 */
export function handleStray(error: unknown, kind: 'exception' | 'rejection', promise: unknown, logger: Logger): boolean {
  const owner = attribute(promise);
  if (owner.kind === 'none') return false;
  if (owner.kind === 'calls') {
    logger.warn({ code: 'E_TOOL_STRAY_ERROR', kind, err: error, toolCallIds: owner.scopes.map((s) => s.toolCallId) }, `a stray ${kind} while several tool calls ran; it could not be attributed to one of them`);
    return true;
  }
  const { scope } = owner;
  if (!scope.done) {
    scope.fail(error);
    return true;
  }
  logger.warn({ code: 'E_TOOL_STRAY_ERROR', kind, err: error, toolCallId: scope.toolCallId, toolName: scope.toolName }, `tool ${scope.toolName} left a ${kind} behind after it returned; ignored`);
  return true;
}
