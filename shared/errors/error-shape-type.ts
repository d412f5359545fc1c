/**
 * The type of the one wire shape of an error (error-shape.ts has its schema and validator). Kept
 * apart so that type-only users — shared/types and the studio's browser code — pull in no runtime.
 */
import type { JsonObject } from '../types/json.ts';

/** Who can act on the error: the user/caller, goondan itself, the model provider, or a tool. */
export type ErrorCategory = 'user' | 'system' | 'provider' | 'tool';

export const ERROR_CATEGORIES: readonly ErrorCategory[] = ['user', 'system', 'provider', 'tool'];

export type ErrorShape = {
  /** Stable UPPERCASE code (`AGENT_NOT_FOUND`, `E_TOOL_INVALID_ARGS`, …). */
  code: string;
  category: ErrorCategory;
  message: string;
  /** The error's type name (tool spec §10.1 `ToolError.name`, e.g. `ToolNotInCatalogError`). */
  name?: string;
  /** What to do next, when someone can act. */
  suggestion?: string;
  /** A page under docs/errors/ that explains the code. */
  helpUrl?: string;
  /** JSON-only facts (file, counts, limits) for logs, tests and UIs. */
  details?: JsonObject;
};
