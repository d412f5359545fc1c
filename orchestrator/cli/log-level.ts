/**
 * GOONDAN_LOG_LEVEL, checked before `goondan run` starts anything: pino throws on a level it does
 * not know, with a stack, and so would every agent process (they inherit the variable).
 */
import pino from 'pino';
import { UsageError } from './usage-error.ts';

export const LOG_LEVELS: readonly string[] = [...Object.keys(pino.levels.values), 'silent'];

export function checkLogLevel(env: Record<string, string | undefined> = process.env): void {
  const level = env.GOONDAN_LOG_LEVEL;
  if (level === undefined || LOG_LEVELS.includes(level)) return;
  throw new UsageError(`GOONDAN_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got '${level}'`);
}
