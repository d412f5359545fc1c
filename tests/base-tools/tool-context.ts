/**
 * A real ToolContext for calling base-tool handlers directly: a temp workspace under os.tmpdir(),
 * a pino logger writing to a temp file, an AbortController for `signal`, the assistant message
 * that "holds" the call (plain data), and the default sandbox (bubblewrap, network off) with the
 * temp root as the state root — so `outside` is hidden from sandboxed commands like real state is.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'bun:test';
import pino from 'pino';
import { DEFAULT_SANDBOX } from '../../shared/config/sandbox-plan.ts';
import { PendingResults } from '../../agent-process/tools/pending-results.ts';
import { consoleCompatibleLogger } from '../../agent-process/tools/tool-logger.ts';
import { createLogger } from '../../shared/logger.ts';
import type { SandboxPlan } from '../../shared/types/sandbox.ts';
import type { JsonObject, JsonValue, Message, ToolContext, ToolHandler } from '../../shared/types/index.ts';

export interface TestToolContext {
  ctx: ToolContext;
  /** The workspace (real path, so results compare without /tmp aliasing surprises). */
  workdir: string;
  /** A second temp directory outside the workspace, for escape attempts. */
  outside: string;
  controller: AbortController;
  logFile: string;
  readLog(): string;
  cleanup(): void;
}

/** `config` may be a function of the temp directories (e.g. `roots: [outside]`). */
export type TestConfig = JsonObject | ((dirs: { workdir: string; outside: string }) => JsonObject);

export function createToolContext(options: { config?: TestConfig; sandbox?: Partial<SandboxPlan>; hiddenFiles?: string[] } = {}): TestToolContext {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'goondan-base-tools-')));
  const workdir = join(root, 'workspace');
  const outside = join(root, 'outside');
  for (const dir of [workdir, outside]) Bun.spawnSync(['mkdir', '-p', dir]);
  const logFile = join(root, 'tool.log');
  const logger = createLogger({ name: 'base-tools-test', level: 'debug', destination: pino.destination({ dest: logFile, sync: true }) });
  const controller = new AbortController();
  const pending = new PendingResults();
  const toolCallId = 'call-1';
  const message: Message = {
    id: 'msg-assistant-1',
    data: { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName: 'test__call', input: {} }] },
    metadata: {},
    createdAt: new Date().toISOString(),
    source: { type: 'assistant', stepId: 'step-1' },
  };
  const ctx: ToolContext = {
    agentName: 'tester',
    instanceKey: 'test-instance',
    turnId: 'turn-1',
    toolCallId,
    message,
    workdir,
    logger: consoleCompatibleLogger(logger),
    config: typeof options.config === 'function' ? options.config({ workdir, outside }) : (options.config ?? {}),
    signal: controller.signal,
    sandbox: { ...DEFAULT_SANDBOX, ...options.sandbox, workdir, stateRoot: root, hiddenPaths: [], ...(options.hiddenFiles ? { hiddenFiles: options.hiddenFiles } : {}) },
    pending: (handle, pendingOptions) => pending.mark(handle, pendingOptions),
  };
  return {
    ctx,
    workdir,
    outside,
    controller,
    logFile,
    readLog: () => readFileSync(logFile, 'utf8'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Calls a handler by export name the way the executor does (sync or async alike). */
export async function callTool(handlers: Record<string, ToolHandler>, name: string, ctx: ToolContext, input: unknown): Promise<JsonValue> {
  const handler = handlers[name];
  if (handler === undefined) throw new Error(`no handler "${name}"`);
  // Handlers are typed for JsonObject input; tests deliberately pass wrong shapes too.
  return handler(ctx, input as JsonObject);
}

/** The thrown error of a call; fails the test when the call succeeds or throws without a code. */
export async function toolError(call: Promise<unknown>): Promise<{ code: string; message: string; suggestion?: string; details?: unknown }> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    expect(typeof code).toBe('string');
    const suggestion = typeof error === 'object' && error !== null && 'suggestion' in error && typeof error.suggestion === 'string' ? error.suggestion : undefined;
    const details = typeof error === 'object' && error !== null && 'details' in error ? error.details : undefined;
    return { code: String(code), message: error instanceof Error ? error.message : String(error), ...(suggestion ? { suggestion } : {}), details };
  }
  throw new Error('expected the tool call to throw');
}

/** Narrows a tool output to an object for property assertions. */
export function asObject(value: JsonValue): JsonObject {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return value;
}

/** Fresh contexts for one test file, each cleaned up after its test: `const setup = toolContexts();`. */
export function toolContexts(): (config?: TestConfig) => TestToolContext {
  const made: TestToolContext[] = [];
  afterEach(() => {
    for (const t of made.splice(0)) t.cleanup();
  });
  return (config = {}) => {
    const t = createToolContext({ config });
    made.push(t);
    return t;
  };
}
