/**
 * Where each error code is explained: one page per code family under docs/errors/, one heading
 * per code (its lowercase form is the anchor). `helpUrl` is a path relative to the repository
 * (and to an installed package, which ships docs/), so it is stable across machines.
 */
import { join } from 'node:path';

export const ERROR_DOCS_DIR = 'docs/errors';
/** The same directory on this machine (for terminals: a path that can be opened). */
export const ERROR_DOCS_LOCAL_DIR = join(import.meta.dir, '..', ERROR_DOCS_DIR);

/** Code prefix → page name; the first match wins, so longer prefixes come first. */
const FAMILIES: ReadonlyArray<readonly [prefix: string, page: string]> = [
  ['E_CONFIG_', 'config'],
  ['E_MODULE_', 'module'],
  ['E_TOOL', 'tool'],
  ['E_EXT_', 'extension'],
  ['E_WINDOW_', 'extension'],
  ['E_COMPACTION_', 'extension'],
  ['E_REQUIRED_TOOLS_', 'extension'],
  ['E_MODEL_', 'model'],
  ['W_MODEL_', 'model'],
  ['E_MCP_', 'mcp'],
  ['W_MCP_', 'mcp'],
  ['E_HTTP_', 'http'],
  ['E_STUDIO_', 'studio'],
  ['E_FS_', 'fs'],
  ['E_SANDBOX_', 'sandbox'],
  ['W_SANDBOX_', 'sandbox'],
  ['E_BASH_', 'base-tools'],
  ['E_JSON_', 'base-tools'],
  ['E_TEXT_', 'base-tools'],
  ['E_WEBHOOK_', 'connectors'],
  ['E_CONNECTOR_', 'connectors'],
  ['E_PROVIDER_', 'connectors'],
  ['E_TELEGRAM_', 'base-tools'],
  ['E_SLACK_', 'base-tools'],
  ['E_AGENTS_', 'agent'],
  ['AGENT_', 'agent'],
  ['CIRCULAR_CALL_DETECTED', 'agent'],
  ['INSTANCE_OUT_OF_SCOPE', 'agent'],
  ['HOP_LIMIT_EXCEEDED', 'agent'],
  ['CLUSTER_UNAVAILABLE', 'agent'],
  ['IPC_', 'agent'],
  ['INVALID_REQUEST', 'agent'],
  ['E_EVENT_', 'agent'],
  ['E_STEP_', 'agent'],
  ['E_ASYNC_', 'agent'],
  ['E_MESSAGE_', 'agent'],
  ['E_RUNTIME_', 'agent'],
  ['E_TURN_', 'agent'],
  ['E_AGENT_', 'agent'],
  ['E_CHILD_', 'agent'],
  ['E_ASSIGNMENT_', 'agent'],
  ['DAEMON_STOPPING', 'agent'],
  ['BUDGET_EXCEEDED', 'agent'],
  ['INSTANCE_DELETED', 'agent'],
  ['IDEMPOTENCY_KEY_REUSED', 'agent'],
  ['W_OTEL_', 'agent'],
  ['W_JSONL_', 'agent'],
];

/** The page (e.g. `config.md`) that explains `code`, if its family has one. */
export function errorDocPage(code: string): string | undefined {
  const family = FAMILIES.find(([prefix]) => code.startsWith(prefix));
  return family ? `${family[1]}.md` : undefined;
}

/** `docs/errors/config.md#e_config_ref_not_found` for `E_CONFIG_REF_NOT_FOUND`. */
export function helpUrlFor(code: string): string | undefined {
  const page = errorDocPage(code);
  return page ? `${ERROR_DOCS_DIR}/${page}#${code.toLowerCase()}` : undefined;
}

/** Sets `helpUrl` on a problem or error shape that has none yet (and whose family has a page). */
export function withHelpUrl<T extends { code: string; helpUrl?: string }>(problem: T): T {
  if (problem.helpUrl === undefined) {
    const url = helpUrlFor(problem.code);
    if (url !== undefined) problem.helpUrl = url;
  }
  return problem;
}
