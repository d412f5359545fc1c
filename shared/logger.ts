/**
 * The one logger factory: pino JSON lines on stdout (or a given destination) with secrets redacted.
 * Every process creates its root logger here and hands out children with trace fields.
 */
import pino from 'pino';

/** Keys whose values must never reach a log line (SPEC.md §1.1 "never log secrets"). */
const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'secrets',
  '*.secrets',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
];

type LogFn = {
  (obj: object, msg?: string): void;
  (msg: string): void;
};

/** What goondan code uses of a logger (a pino logger is one; so is the deferred one of children). */
export interface RootLogger {
  readonly level: string;
  child(bindings: Record<string, unknown>): RootLogger;
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  trace: LogFn;
}

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Fields on every line (pid is always added by pino). */
  base?: Record<string, unknown>;
  /** Defaults to stdout (fd 1). */
  destination?: pino.DestinationStream | number;
  /** Append to this file instead (synchronous writes), e.g. when stdout is the user's terminal. */
  file?: string;
}

export function createLogger(options: LoggerOptions): RootLogger {
  const level = options.level ?? process.env.GOONDAN_LOG_LEVEL ?? 'info';
  const destination = options.destination ?? 1;
  const stream =
    options.file !== undefined
      ? pino.destination({ dest: options.file, append: true, sync: true })
      : typeof destination === 'number'
        ? pino.destination({ dest: destination, sync: true })
        : destination;
  return pino(
    {
      name: options.name,
      level,
      base: { pid: process.pid, ...options.base },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
}
