/** `wait__seconds`: pause for up to 300 s; a cancelled call (engine timeout, drain) stops at once. */
import type { ToolHandler } from '../../../../shared/types/index.ts';
import { abortedError } from '../tool-error.ts';
import { argsReader } from '../tool-input.ts';

interface SecondsArgs {
  seconds: number;
}

const readSecondsArgs = argsReader<SecondsArgs>(import.meta.dir, 'seconds');

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError('The wait'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError('The wait'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const handlers: Record<string, ToolHandler> = {
  seconds: async (ctx, input) => {
    const { seconds } = readSecondsArgs(input);
    const started = performance.now();
    await sleep(seconds * 1000, ctx.signal);
    return { seconds, waitedMs: Math.round(performance.now() - started) };
  },
};
