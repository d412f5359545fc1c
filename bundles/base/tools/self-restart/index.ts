/**
 * `self-restart__request`: the agent asks for its own process to be restarted after the current
 * turn (e.g. after editing its own configuration). The tool only says so; the agent shell reads
 * `{restartRequested: true}` from the result and acts on it (SPEC.md §2.8).
 */
import type { ToolHandler } from '../../../../shared/types/index.ts';
import { argsReader } from '../tool-input.ts';

interface RequestArgs {
  reason?: string;
}

const readRequestArgs = argsReader<RequestArgs>(import.meta.dir, 'request');

export const handlers: Record<string, ToolHandler> = {
  request: async (ctx, input) => {
    const { reason } = readRequestArgs(input);
    const restartReason = reason?.trim() || 'requested by the agent';
    ctx.logger.info({ agentName: ctx.agentName, instanceKey: ctx.instanceKey, restartReason }, 'self-restart requested');
    return { restartRequested: true, restartReason };
  },
};
