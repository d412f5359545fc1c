/**
 * The one error class of the built-in chat connectors: a stable UPPERCASE code, a message that
 * never contains a credential, and a suggestion where someone can act. A connector that cannot
 * start throws it; the connector host reports the message and the supervisor restarts it.
 */
const MARKER = Symbol.for('goondan.base.connector-error');

export class ConnectorError extends Error {
  readonly code: string;
  declare readonly suggestion?: string;
  readonly [MARKER] = true;

  constructor(code: string, message: string, suggestion?: string) {
    super(suggestion === undefined ? message : `${message} (${suggestion})`);
    this.name = 'ConnectorError';
    this.code = code;
    if (suggestion !== undefined) this.suggestion = suggestion;
  }

  static isInstance(value: unknown): value is ConnectorError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}
