/** Thrown by the plan builders: the bundle cannot produce the requested plan. */
import { withHelpUrl } from '../error-help.ts';
import type { ConfigProblem } from '../types/bundle.ts';

const MARKER = Symbol.for('goondan.ConfigError');

export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly [MARKER] = true;
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[], message?: string) {
    const first = problems[0];
    super(message ?? (first ? `${first.code}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}` : 'invalid configuration'));
    // Problems built outside the config plane (the daemon's own) get their helpUrl here.
    this.problems = problems.map(withHelpUrl);
  }

  /** Recognises a ConfigError also across module copies (marker symbol, not instanceof). */
  static isInstance(value: unknown): value is ConfigError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }

  toJSON(): { name: string; message: string; problems: ConfigProblem[] } {
    return { name: this.name, message: this.message, problems: this.problems };
  }
}
