/**
 * The agent engine (ARCHITECTURE §4): given an AgentPlan it loads tools and extensions, recovers
 * unfolded conversation events, and runs turns one at a time. Usable in-process (tests) and from
 * the AgentProcess shell (agent-process/main.ts), which wires it to IPC.
 */
import { join, resolve } from 'node:path';
import type { AgentPlan, ExtensionPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent, InterAgentReply } from '../../shared/types/events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ExtensionApi } from '../../shared/types/extensions.ts';
import type { MessageEvent } from '../../shared/types/messages.ts';
import type { ProcessSandbox } from '../../shared/types/sandbox.ts';
import type { AgentToolRuntime, ToolCatalogItem, ToolHandler } from '../../shared/types/tools.ts';
import type { RuntimeEvent, TurnResult } from '../../shared/types/turns.ts';
import { PACKAGE_ROOT } from '../../shared/package-root.ts';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { warnTornTail } from '../../shared/durability/line-boundary.ts';
import { retentionLimits } from '../../shared/durability/rotating-log.ts';
import { BASE_PACKAGE } from '../../shared/types/resources.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import { Conversation, type ConversationWarning } from '../conversation/conversation-state.ts';
import { InstanceMetadataFile } from '../conversation/instance-metadata.ts';
import { isMessageEvent, messageEventProblems, normalizeMessageEvent } from '../conversation/message-schema.ts';
import { MessageStore } from '../conversation/message-store.ts';
import { EventBus } from '../extensions/event-bus.ts';
import { createExtensionApi, type CloseHandler } from '../extensions/extension-api.ts';
import { loadExtension } from '../extensions/extension-loader.ts';
import { ExtensionStateStore } from '../extensions/extension-state.ts';
import { createLanguageModel } from '../models/create-language-model.ts';
import { PromptConverter } from '../models/prompt-converter.ts';
import { RuntimeEventLog } from '../observability/runtime-event-log.ts';
import { ToolCallRunner } from '../tools/tool-call-runner.ts';
import { ToolContextFactory } from '../tools/tool-context.ts';
import { ToolExecutor } from '../tools/tool-executor.ts';
import { PendingResults } from '../tools/pending-results.ts';
import { ToolJournal } from '../tools/tool-journal.ts';
import { ToolPermissionGate } from '../tools/tool-permission-gate.ts';
import { loadToolHandlers } from '../tools/tool-loader.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import { AsyncReplyInbox } from './async-reply-inbox.ts';
import type { ModelGate } from './model-gate.ts';
import type { EngineInternals } from './engine-internals.ts';
import { PipelineRegistry } from './pipeline-registry.ts';
import { executeTurn, foldConversation, type TurnHooks, type TurnLifecycleDeps } from './turn-lifecycle.ts';
import { within } from '../../shared/within.ts';

export interface AgentEngineOptions {
  /** shared/types/bundle.ts — already resolved: model, tools, extensions, prompt. */
  plan: AgentPlan;
  /** maxStepsPerTurn, workspaceId, entryAgent, agents. */
  swarm: SwarmPlan;
  instanceKey: string;
  /** Instance dir = instancePaths(stateRoot, swarm.workspaceId, plan.name, instanceKey). */
  stateRoot: string;
  logger: RootLogger;
  /** Becomes ToolContext.runtime and backs ctx.agents in turn/step middleware. */
  agentsRuntime?: AgentToolRuntime;
  /** Every runtime event (also written to runtime-events.jsonl). */
  onRuntimeEvent?: (event: RuntimeEvent) => void;
  /** A tool asked for a process restart (self-restart tool, SPEC.md §2.8); the shell acts on it after the turn. */
  onRestartRequested?: (reason: string) => void;
  env?: Record<string, string | undefined>;
  /** Default per-call tool time limit where the export declares none (5 min); on timeout the result is E_TOOL_TIMEOUT and ctx.signal aborts. */
  toolTimeoutMs?: number;
  /** tool spec §2.3.3: let the model call registry tools that the step's catalog does not offer. Default false. */
  allowRegistryDirectCalls?: boolean;
  /** Human approval of tool calls (the shell asks the orchestrator); becomes `api.approvals` of every extension and answers the tools' own `ask`. */
  approvals?: ExtensionApi['approvals'];
  /** Admits each model call (budgets, rate limits): the shell asks the orchestrator. */
  modelGate?: ModelGate;
  /** How long close() waits for each extension's onClose handler (default 5 s). */
  closeTimeoutMs?: number;
  /** Before each tool handler acts on the world, after its journal record (cluster mode: replicate state first). */
  beforeToolEffect?: () => Promise<void>;
  /** Tools of the process itself rather than of the plan, registered after the plan's (a warm spare's rehearsal no-op). */
  ownTools?: ReadonlyArray<{ owner: string; item: ToolCatalogItem; handler: ToolHandler }>;
}

export interface AgentEngine {
  /** Never rejects for model/tool/extension errors (finishReason 'error' + error); rejects only when state cannot be written. */
  runTurn(event: AgentEvent, hooks?: TurnHooks): Promise<TurnResult>;
  /** Injected before the next step (or at the start of the next turn if idle). */
  deliverAsyncReply(reply: InterAgentReply): void;
  /**
   * Aborts running tool calls and every later one (their ctx.signal): the agent drains and its
   * grace period is ending, so their processes must end while this process can still end them.
   * `except`: tool names still let through (a rehearsal refuses every tool but its own no-op).
   */
  abortToolCalls(reason: string, except?: ReadonlySet<string>): void;
  /** Tool handlers running now (an agents__request waiting for its reply is one). */
  runningToolCalls(): number;
  /** Flushes state and releases files; running tool handlers are aborted. */
  close(): Promise<void>;
}

const DEFAULT_MAX_STEPS = 32;
const DEFAULT_CLOSE_TIMEOUT_MS = 5000;
const CONTEXT_MESSAGE = 'context-message';
const CONTEXT_MESSAGE_ENTRY = join(PACKAGE_ROOT, 'bundles/base/extensions/context-message/index.ts');

export async function createAgentEngine(options: AgentEngineOptions): Promise<AgentEngine> {
  const { plan, swarm, instanceKey } = options;
  const logger = options.logger.child({ agent: plan.name, instanceKey });
  const paths = instancePaths(options.stateRoot, swarm.workspaceId, plan.name, instanceKey);

  const fsync = new FsyncPolicy(swarm.durability.fsync);
  const store = new MessageStore(paths.baseMessages, paths.messageEvents, fsync, paths.baseEdits, warnTornTail(logger));
  const journal = new ToolJournal(
    paths.toolJournal,
    fsync,
    (line) => logger.warn({ code: 'E_TOOL_JOURNAL_LINE_INVALID', file: paths.toolJournal, line }, `line ${line} of the tool-call journal is not a valid record; skipped`),
    warnTornTail(logger),
  );
  const conversation = recoverConversation(store, logger);
  const metadataFile = new InstanceMetadataFile(paths.metadata, plan.name, instanceKey);
  metadataFile.write('idle');

  const bus = new EventBus(logger);
  const events = new RuntimeEventLog(paths.runtimeEvents, retentionLimits(swarm.durability), bus, logger, options.onRuntimeEvent);
  const registry = new ToolRegistry();
  const sandbox = agentSandbox(plan, paths.workdir, options.stateRoot, options.env ?? process.env);
  for (const tool of plan.tools) registry.registerToolPlan(tool, await loadToolHandlers(tool));
  // After the plan's: one of the same name replaces the plan's, so a tool let through by name
  // (abortToolCalls' `except`) is always the process's own.
  for (const tool of options.ownTools ?? []) registry.registerExtensionTool(tool.owner, tool.item, tool.handler);
  const env = options.env ?? process.env;
  const gate = options.modelGate;
  const model = await createLanguageModel(plan, env, gate && plan.model.rateLimit ? (ms) => gate.throttled(ms) : undefined);

  const inbox = new AsyncReplyInbox(logger, {
    path: paths.asyncReplies,
    fsync,
    alreadyInConversation: (requestId) => conversation.holdsReplyTo(requestId),
  });
  const pending = new PendingResults();
  const contexts = new ToolContextFactory({ workdir: paths.workdir, logger, pending, sandbox, ...(options.agentsRuntime ? { runtime: options.agentsRuntime } : {}) });
  const executor = new ToolExecutor({
    registry,
    contexts,
    pending,
    permissions: new ToolPermissionGate(logger, options.approvals),
    logger,
    strictResults: env.GOONDAN_STRICT_RESULTS === '1',
    onCompletion: (completion) => inbox.push(completion),
    ...(options.toolTimeoutMs !== undefined ? { timeoutMs: options.toolTimeoutMs } : {}),
    ...(options.allowRegistryDirectCalls !== undefined ? { allowRegistryDirectCalls: options.allowRegistryDirectCalls } : {}),
    journal,
    ...(options.beforeToolEffect ? { beforeEffect: options.beforeToolEffect } : {}),
  });
  const pipeline = new PipelineRegistry();
  const toolRunner = new ToolCallRunner({
    agentName: plan.name,
    instanceKey,
    maxToolResultBytes: plan.maxToolResultBytes,
    pipeline,
    executor,
    registry,
    events,
    workdir: () => contexts.workdir(),
    logger,
  });

  const append = (message: Parameters<EngineInternals['append']>[0]): void => {
    const event: MessageEvent = { type: 'append', message };
    store.appendEvent(event);
    conversation.apply(event);
  };
  const internals: EngineInternals = {
    plan,
    swarm,
    instanceKey,
    logger,
    conversation,
    append,
    emitMessageEvent: (emitted) => {
      // Extensions are code we did not write: their events are checked before they reach the files.
      const event = normalizeMessageEvent(emitted);
      if (!isMessageEvent(event)) throw new TypeError(`emitMessageEvent: invalid message event: ${messageEventProblems()}`);
      store.appendEvent(event);
      conversation.apply(event);
    },
    registry,
    pipeline,
    toolRunner,
    events,
    model,
    prompt: new PromptConverter(),
    inbox,
    journal,
    fsync,
    maxStepsPerTurn: swarm.maxStepsPerTurn > 0 ? swarm.maxStepsPerTurn : DEFAULT_MAX_STEPS,
    ...(options.onRestartRequested ? { onRestartRequested: options.onRestartRequested } : {}),
    ...(options.modelGate ? { modelGate: options.modelGate } : {}),
  };

  const states = new ExtensionStateStore(paths.extensionsDir);
  const closeHandlers: Array<{ extension: string; handler: CloseHandler }> = [];
  for (const extension of withContextMessage(plan.extensions)) {
    const problem = states.load(extension.name);
    if (problem !== undefined) logger.warn({ code: 'E_EXT_STATE_READ', extension: extension.name }, problem);
    const api = createExtensionApi({
      name: extension.name,
      pipeline,
      registry,
      states,
      bus,
      logger: logger.child({ extension: extension.name }),
      closeHandlers,
      sandbox,
      ...(options.approvals ? { approvals: options.approvals } : {}),
    });
    await loadExtension(extension, api);
  }

  const deps: TurnLifecycleDeps = { engine: internals, store, states, metadataFile, ...(options.agentsRuntime ? { agentsRuntime: options.agentsRuntime } : {}) };
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  return {
    runTurn(event, hooks) {
      if (closed) return Promise.reject(new Error('the agent engine is closed'));
      // Strictly one turn at a time per engine, even if the caller does not queue.
      const run = queue.then(() => executeTurn(deps, event, hooks));
      queue = run.catch(() => {});
      return run;
    },
    deliverAsyncReply(reply) {
      deps.engine.inbox.push(reply);
      // The caller may now acknowledge the reply to the orchestrator: it is on disk first.
      fsync.barrier();
    },
    runningToolCalls: () => executor.runningCount,
    abortToolCalls(reason, except) {
      executor.abortAll(reason, except);
    },
    async close() {
      if (closed) return;
      closed = true;
      executor.abortAll('the agent engine is shutting down');
      await queue;
      await runCloseHandlers(closeHandlers, options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, logger);
      try {
        states.flush();
        foldConversation(deps);
      } finally {
        journal.close();
        internals.inbox.close();
        store.close();
        events.close();
        metadataFile.write('idle');
        metadataFile.close();
      }
    },
  };
}

/** Where deploy/goondan.service keeps the daemon's keys (EnvironmentFile=): the daemon cannot know it was read. */
const SERVICE_ENV_FILE = '/etc/goondan/goondan.env';

/** Tool processes never see the state root or the daemon's env file, and see the bundle and the daemon's home only when the plan names them. */
function agentSandbox(plan: AgentPlan, workdir: string, stateRoot: string, env: Record<string, string | undefined>): ProcessSandbox {
  const home = env.HOME;
  const envFile = env.GOONDAN_ENV_FILE;
  return {
    ...plan.sandbox,
    workdir,
    stateRoot: resolve(stateRoot),
    hiddenPaths: [resolve(plan.bundleRoot), ...(home ? [resolve(home)] : [])],
    hiddenFiles: [SERVICE_ENV_FILE, ...(envFile ? [resolve(envFile)] : [])],
  };
}

/** ARCHITECTURE §5: the built-in context-message extension is attached first unless the agent lists it. */
function withContextMessage(extensions: readonly ExtensionPlan[]): ExtensionPlan[] {
  if (extensions.some((extension) => extension.name === CONTEXT_MESSAGE)) return [...extensions];
  const implicit: ExtensionPlan = {
    name: CONTEXT_MESSAGE,
    packageName: BASE_PACKAGE,
    entryPath: CONTEXT_MESSAGE_ENTRY,
    config: { includeCatalog: false, includeInbound: false, includeCall: true },
  };
  return [implicit, ...extensions];
}

/** Base + unfolded events of a crashed run, folded right away so the next turn starts clean. */
function recoverConversation(store: MessageStore, logger: RootLogger): Conversation {
  const stored = store.load();
  for (const warning of stored.warnings) logger.warn(warning, warning.message);
  let replaying = false;
  const conversation = new Conversation(stored.base, (warning: ConversationWarning) => {
    // Replaying over a base that a delta fold already extended repeats appends: expected, not news.
    if (replaying && warning.code === 'E_MESSAGE_DUPLICATE_ID') return;
    logger.warn(warning, warning.message);
  });
  if (stored.events.length > 0) {
    replaying = true;
    for (const event of stored.events) conversation.apply(event);
    replaying = false;
    store.fold(conversation.foldPlan());
    conversation.commitFold();
    logger.info({ events: stored.events.length }, 'recovered unfolded conversation events');
  }
  return conversation;
}

/** `api.onClose` handlers, in registration order, each bounded by a timeout; failures are logged. */
async function runCloseHandlers(handlers: Array<{ extension: string; handler: CloseHandler }>, timeoutMs: number, logger: RootLogger): Promise<void> {
  for (const { extension, handler } of handlers) {
    try {
      const outcome = await within(Promise.resolve().then(handler), timeoutMs, () => 'timeout' as const);
      if (outcome === 'timeout') logger.warn({ code: 'E_EXT_CLOSE_TIMEOUT', extension, timeoutMs }, `extension '${extension}' did not finish closing in ${timeoutMs} ms`);
    } catch (error) {
      logger.warn({ code: 'E_EXT_CLOSE', extension, err: error }, `extension '${extension}' failed while closing`);
    }
  }
}
