/**
 * The logger of child processes (agents, connectors): the same pino logger as everywhere, created
 * on the first line that is actually written. An agent that logs nothing at the configured level
 * (the normal case at `info`) never loads pino, which with its streams costs ~12 MB of RSS per
 * process — half of a bare Bun process.
 */
import type { LoggerOptions, RootLogger } from './logger.ts';
import { packageRequire } from './package-root.ts';

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };
type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

interface Root {
  threshold: number;
  pino?: RootLogger;
  options: LoggerOptions;
}

export function createDeferredLogger(options: LoggerOptions): RootLogger {
  const level = options.level ?? process.env.GOONDAN_LOG_LEVEL ?? 'info';
  return deferred({ threshold: LEVELS[level] ?? LEVELS.info ?? 30, options: { ...options, level } }, []);
}

function deferred(root: Root, chain: ReadonlyArray<Record<string, unknown>>): RootLogger {
  let real: RootLogger | undefined;
  const target = (): RootLogger => {
    if (!real) {
      // require() is untyped: this is the module's own declared type.
      const { createLogger } = packageRequire('./shared/logger.ts') as typeof import('./logger.ts');
      root.pino ??= createLogger(root.options);
      real = chain.reduce<RootLogger>((logger, bindings) => logger.child(bindings), root.pino);
    }
    return real;
  };
  const method = (name: Level) =>
    (objOrMsg: object | string, msg?: string): void => {
      if ((LEVELS[name] ?? 0) < root.threshold) return;
      if (typeof objOrMsg === 'string') target()[name](objOrMsg);
      else target()[name](objOrMsg, msg);
    };
  return {
    level: root.options.level ?? 'info',
    child: (bindings) => deferred(root, [...chain, bindings]),
    fatal: method('fatal'),
    error: method('error'),
    warn: method('warn'),
    info: method('info'),
    debug: method('debug'),
    trace: method('trace'),
  };
}
