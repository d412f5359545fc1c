/**
 * The sequence every chain call shares (turn, step, toolCall): report started → run the chain with
 * this call's core → guard what came back (a middleware may return anything, or throw) → report
 * completed or failed with the duration. Failures become the chain's own failed result; nothing
 * here throws.
 */
import { type ErrorShape, errorMessageOf, errorShape } from '../../shared/errors/index.ts';
import { elapsed, type Span } from '../observability/trace-span.ts';
import type { ChainName, ChainTypes, MiddlewareOf, PipelineRegistry } from './pipeline-registry.ts';

export interface ChainCall<K extends ChainName> {
  ctx: ChainTypes[K]['ctx'];
  core: MiddlewareOf<K>;
  /** The call's span: its start time gives the duration. */
  span: Span;
  /** The chain's result made of what the chain returned, or undefined when it is not one. */
  accept(value: unknown): ChainTypes[K]['result'] | undefined;
  /** The chain's failed result for an error that escaped the chain. */
  failed(error: ErrorShape): ChainTypes[K]['result'];
  /** Last touch on the result before it is reported and returned (e.g. the error message limit). */
  settle?(result: ChainTypes[K]['result']): ChainTypes[K]['result'];
  started(): void;
  finished(result: ChainTypes[K]['result'], durationMs: number): void;
}

export async function runChain<K extends ChainName>(pipeline: PipelineRegistry, chain: K, call: ChainCall<K>): Promise<ChainTypes[K]['result']> {
  call.started();
  let result: ChainTypes[K]['result'];
  try {
    const returned: unknown = await pipeline.run(chain, call.ctx, call.core);
    result = call.accept(returned) ?? call.failed(middlewareError(`a ${chain} middleware returned something that is not a ${RESULT_NAMES[chain]}`));
  } catch (error) {
    result = call.failed(middlewareError(`${chain} middleware failed: ${errorMessageOf(error)}`));
  }
  if (call.settle) result = call.settle(result);
  call.finished(result, elapsed(call.span));
  return result;
}

const RESULT_NAMES: Record<ChainName, string> = { turn: 'TurnResult', step: 'StepResult', toolCall: 'ToolResult' };

export function middlewareError(message: string): ErrorShape {
  return errorShape('E_EXT_MIDDLEWARE', 'system', message, { suggestion: 'See the extension named in the message; its middleware must call next() once and return its result.' });
}
