/** Shape of one `goondan <command>`: each lives in its own file under commands/. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { ExitCode } from './exit-codes.ts';
import { UsageError } from './usage-error.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Raw stdout (no newline added): text that streams in pieces. */
  write?: (text: string) => void;
}

export interface CliCommand {
  name: string;
  /** One line for `goondan --help`. */
  summary: string;
  /** Full text for `goondan <command> --help`. */
  usage: string;
  run(argv: string[], io: CliIo): Promise<ExitCode>;
}

// Its own module: `goondan --help` must not load node:util (~9 ms of CPU) to know the class.
export { UsageError };

/** `node:util` parseArgs whose complaints (unknown flag, missing value) become usage errors (exit 2). */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * A flag whose empty value would silently mean its absence (`--instance ""`: the default instance,
 * or every instance for a filter) is refused, as the HTTP API refuses an empty key.
 */
export function nonEmpty(value: string | undefined, flag: string, absentMeans: string): string | undefined {
  if (value === '') throw new UsageError(`${flag} must not be empty (leave it out for ${absentMeans})`);
  return value;
}
