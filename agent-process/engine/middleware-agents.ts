/**
 * `ctx.agents` of turn and step middleware (SPEC.md §2.6), backed by the same AgentToolRuntime the
 * tools use, so there is one routing path. Unlike the tool path, failures throw here.
 */
import type { MiddlewareAgentsApi } from '../../shared/types/extensions.ts';
import type { AgentToolRuntime } from '../../shared/types/tools.ts';

export class AgentRequestError extends Error {
  readonly code = 'IPC_DELIVERY_FAILED';
  constructor(readonly target: string) {
    super(`Cannot reach agent '${target}': this engine has no inter-agent runtime (it runs outside an orchestrator)`);
    this.name = 'AgentRequestError';
  }
}

export function createMiddlewareAgents(runtime: AgentToolRuntime | undefined, trace: () => { traceId: string; spanId: string }): MiddlewareAgentsApi {
  return {
    async request(req) {
      if (!runtime) throw new AgentRequestError(req.target);
      const { traceId, spanId } = trace();
      const result = await runtime.request(
        req.target,
        {
          input: req.input,
          traceId,
          parentSpanId: spanId,
          ...(req.instanceKey !== undefined ? { instanceKey: req.instanceKey } : {}),
          ...(req.metadata !== undefined ? { metadata: req.metadata } : {}),
        },
        { ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}), ...(req.async !== undefined ? { async: req.async } : {}) },
      );
      return {
        target: result.target,
        response: result.response ?? '',
        correlationId: result.correlationId,
        ...(result.accepted !== undefined ? { accepted: result.accepted } : {}),
        ...(result.async !== undefined ? { async: result.async } : {}),
      };
    },
    async send(req) {
      if (!runtime) throw new AgentRequestError(req.target);
      const { traceId, spanId } = trace();
      const result = await runtime.send(req.target, {
        input: req.input,
        traceId,
        parentSpanId: spanId,
        ...(req.instanceKey !== undefined ? { instanceKey: req.instanceKey } : {}),
        ...(req.metadata !== undefined ? { metadata: req.metadata } : {}),
      });
      return { accepted: result.accepted };
    },
  };
}
