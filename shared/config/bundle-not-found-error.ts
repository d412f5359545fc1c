/** Thrown by loadBundle when PATH holds nothing to load (CLI exit 3). */
const MARKER = Symbol.for('goondan.BundleNotFoundError');

export class BundleNotFoundError extends Error {
  override name = 'BundleNotFoundError';
  readonly code = 'E_CONFIG_NOT_FOUND';
  readonly [MARKER] = true;
  readonly path: string;
  /** Why, without the path: "no such file or directory", "not a YAML file", … */
  readonly reason: string;
  readonly suggestion: string;

  constructor(path: string, reason: string) {
    super(`${reason}: ${path}`);
    this.path = path;
    this.reason = reason;
    this.suggestion = 'pass a bundle directory holding goondan.yaml (or resource files such as agents.yaml), or one YAML file';
  }

  static isInstance(value: unknown): value is BundleNotFoundError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}
