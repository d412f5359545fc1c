/**
 * `agents__*` (tool spec §11, SPEC.md §2.6): inter-agent calls through the orchestrator.
 * `request` waits for the target's reply (or, with `async: true`, answers pending with the
 * correlation id as its handle and has the reply delivered before a later step); `send` is fire-and-forget; `spawn`, `list`, `catalog` manage and describe instances.
 * Every failure is thrown with a stable code so the executor returns a `status: "error"` ToolResult.
 */
import type { AgentToolRuntime, JsonObject, JsonValue, ToolContext, ToolHandler } from '../../../../shared/types/index.ts';
import { BaseToolError } from '../tool-error.ts';

function runtimeOf(ctx: ToolContext): AgentToolRuntime {
  if (!ctx.runtime) {
    throw new BaseToolError('E_AGENTS_UNAVAILABLE', 'inter-agent calls need the goondan orchestrator, and this agent runs without one.', {
      suggestion: "run the swarm with 'goondan run'",
    });
  }
  return ctx.runtime;
}

function text(input: JsonObject, key: string, required: boolean): string | undefined {
  const value = input[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    throw new BaseToolError('E_TOOL_INVALID_ARGS', `args.${key}: expected a non-empty string`, { suggestion: `pass ${key} as a string` });
  }
  return value;
}

function metadataOf(input: JsonObject): JsonObject | undefined {
  const value = input.metadata;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

/** Errors from the runtime carry `code`/`suggestion`; keep them, they are what the model acts on. */
async function call<T>(target: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
      const suggestion = 'suggestion' in error && typeof error.suggestion === 'string' ? error.suggestion : undefined;
      throw new BaseToolError(error.code, `${target}: ${error.message}`, suggestion ? { suggestion } : {});
    }
    throw error;
  }
}

/** Derived from this tool call's identity (instance, assistant message, call id): stable across a resume. */
function stableRequestId(ctx: ToolContext): string {
  // Bun's hasher: node:crypto would add ~3.5 MB to every agent process that loads this tool.
  return new Bun.CryptoHasher('sha256').update(`${ctx.agentName}\u0000${ctx.instanceKey}\u0000${ctx.message.id}\u0000${ctx.toolCallId}`).digest('base64url').slice(0, 22);
}

const request: ToolHandler = async (ctx, input) => {
  const target = text(input, 'target', true) ?? '';
  const message = text(input, 'input', true) ?? '';
  const instanceKey = text(input, 'instanceKey', false);
  const eventType = text(input, 'eventType', false);
  const metadata = metadataOf(input);
  const timeoutMs = typeof input.timeoutMs === 'number' ? input.timeoutMs : undefined;
  const result = await call(target, () =>
    runtimeOf(ctx).request(
      target,
      {
        input: message,
        ...(instanceKey ? { instanceKey } : {}),
        ...(eventType ? { type: eventType } : {}),
        ...(metadata ? { metadata } : {}),
        // One traceId across agents; this tool call's span parents the callee's turn (SPEC.md §3.2).
        ...(ctx.trace ? { traceId: ctx.trace.traceId, parentSpanId: ctx.trace.spanId } : {}),
      },
      {
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(input.async === true ? { async: true } : {}),
        // The same call repeated after a crash sends the same event: the callee runs it once (issue 10).
        requestId: stableRequestId(ctx),
      },
    ),
  );
  if (result.async) {
    // tool spec §10.2: a pending result whose handle is the correlation id; the reply itself enters
    // the conversation as a message before a later step (the async reply inbox).
    return ctx.pending(result.correlationId, { output: { target, note: `the reply from ${target} will arrive as a message before a later step` } });
  }
  return { target, response: result.response ?? '', correlationId: result.correlationId };
};

const send: ToolHandler = async (ctx, input) => {
  const target = text(input, 'target', true) ?? '';
  const message = text(input, 'input', true) ?? '';
  const instanceKey = text(input, 'instanceKey', false);
  const eventType = text(input, 'eventType', false);
  const metadata = metadataOf(input);
  const result = await call(target, () =>
    runtimeOf(ctx).send(target, {
      input: message,
      ...(instanceKey ? { instanceKey } : {}),
      ...(eventType ? { type: eventType } : {}),
      ...(metadata ? { metadata } : {}),
      ...(ctx.trace ? { traceId: ctx.trace.traceId, parentSpanId: ctx.trace.spanId } : {}),
    }),
  );
  if (!result.accepted) {
    throw new BaseToolError('AGENT_NOT_FOUND', `'${target}' is not an agent of this swarm; nothing was sent.`, {
      suggestion: 'call agents__catalog to see the agents you can message',
    });
  }
  return { sent: true, target, eventId: result.eventId };
};

const spawn: ToolHandler = async (ctx, input) => {
  const target = text(input, 'target', true) ?? '';
  const instanceKey = text(input, 'instanceKey', false);
  const cwd = text(input, 'cwd', false);
  const result = await call(target, () =>
    runtimeOf(ctx).spawn(target, { ...(instanceKey ? { instanceKey } : {}), ...(cwd ? { cwd } : {}) }),
  );
  const output: JsonObject = { target: result.target, instanceKey: result.instanceKey, spawned: result.spawned };
  if (result.cwd) output.cwd = result.cwd;
  return output;
};

const list: ToolHandler = async (ctx, input) => {
  const result = await call('orchestrator', () => runtimeOf(ctx).list({ includeAll: input.includeAll === true }));
  const agents: JsonValue[] = result.agents.map((a) => {
    const row: JsonObject = { target: a.target, instanceKey: a.instanceKey, status: a.status, createdAt: a.createdAt };
    if (a.ownerAgent) row.ownerAgent = a.ownerAgent;
    if (a.ownerInstanceKey) row.ownerInstanceKey = a.ownerInstanceKey;
    if (a.cwd) row.cwd = a.cwd;
    return row;
  });
  return { agents };
};

const catalog: ToolHandler = async (ctx) => {
  const result = await call('orchestrator', () => runtimeOf(ctx).catalog());
  return {
    swarmName: result.swarmName,
    entryAgent: result.entryAgent,
    selfAgent: result.selfAgent,
    availableAgents: result.availableAgents,
    callableAgents: result.callableAgents,
  };
};

export const handlers: Record<string, ToolHandler> = { request, send, spawn, list, catalog };
