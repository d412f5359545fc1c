/**
 * `ToolContext.logger` (tool spec §7.3: a `Console`): `log`, `info`, `warn`, `error` and `debug`
 * accept what `console` accepts and write one structured pino line carrying the call's trace
 * fields. An object (not an Error) followed by at most a message string is pino's own form
 * (`info({path}, 'read %d', n)`: the object's keys become fields); an Error first becomes `err`;
 * anything else is formatted like `console.log` into `msg`.
 */
import type { ToolLogger } from '../../shared/types/tools.ts';

/**
 * node:util costs ~1.8 MB of RSS in every process that loads it; only a tool that logs in
 * `console` form needs its `format`, so it is loaded on that first line.
 */
function format(...data: unknown[]): string {
  // require() is untyped: this is the module's own declared type.
  const util = require('node:util') as typeof import('node:util');
  return util.format(...data);
}

/** The part of a pino logger this needs (a call's child logger). */
export interface PinoLike {
  debug(obj: unknown, msg?: string, ...args: unknown[]): void;
  info(obj: unknown, msg?: string, ...args: unknown[]): void;
  warn(obj: unknown, msg?: string, ...args: unknown[]): void;
  error(obj: unknown, msg?: string, ...args: unknown[]): void;
}

type Level = 'debug' | 'info' | 'warn' | 'error';

export function consoleCompatibleLogger(pino: PinoLike): ToolLogger {
  const at = (level: Level) => (...data: unknown[]): void => {
    const [first, ...rest] = data;
    if (first instanceof Error) {
      pino[level]({ err: first }, rest.length > 0 ? format(...rest) : first.message);
    } else if (typeof first === 'object' && first !== null && !Array.isArray(first) && (rest.length === 0 || typeof rest[0] === 'string')) {
      const [msg, ...args] = rest;
      if (typeof msg === 'string') pino[level](first, msg, ...args);
      else pino[level](first);
    } else if (data.length > 0) {
      pino[level](format(...data));
    }
  };
  return { log: at('info'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
