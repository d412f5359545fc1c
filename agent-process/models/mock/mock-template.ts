/**
 * `{{…}}` templates of the mock script: `input`, `agent`, `system`, `match.N`, `result`,
 * `result.<path>`, `error`. What cannot be filled stays as written so a typo is visible in the
 * reply: an unknown name, `match.N` beyond the regex's groups, a `result.<path>` that is not in a
 * successful result. Empty on purpose: `error` without an error, and `result.<path>` after a failed
 * tool call (its `{{error}}` says why), so `{{result.response}}{{error}}` reads well either way.
 */
import type { JsonValue } from '../../../shared/types/json.ts';

export interface TemplateScope {
  input: string;
  agent: string;
  /** The system message text. */
  system: string;
  match: readonly string[];
  /** Text of every tool result of the previous step, joined by newlines. */
  result: string;
  /** Output of the first tool result of the previous step (parsed JSON where possible). */
  firstResult: JsonValue | undefined;
  /** Error message of the first tool result, when it was an error. */
  error: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export function renderTemplate(template: string, scope: TemplateScope): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => lookup(name, scope) ?? whole);
}

/** Renders every string inside a JSON value (tool-call args). */
export function renderJson(value: JsonValue, scope: TemplateScope): JsonValue {
  if (typeof value === 'string') return renderTemplate(value, scope);
  if (Array.isArray(value)) return value.map((item) => renderJson(item, scope));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) out[key] = renderJson(item, scope);
    return out;
  }
  return value;
}

function lookup(name: string, scope: TemplateScope): string | undefined {
  if (name === 'input') return scope.input;
  if (name === 'agent') return scope.agent;
  if (name === 'system') return scope.system;
  if (name === 'result') return scope.result;
  if (name === 'error') return scope.error;
  if (name.startsWith('match.')) {
    const index = Number(name.slice('match.'.length));
    return Number.isInteger(index) ? scope.match[index] : undefined;
  }
  if (name.startsWith('result.')) {
    const value = pathValue(scope.firstResult, name.slice('result.'.length).split('.'));
    if (value === undefined) return scope.error === '' ? undefined : '';
    return stringify(value);
  }
  return undefined;
}

function pathValue(root: JsonValue | undefined, path: readonly string[]): JsonValue | undefined {
  let current = root;
  for (const key of path) {
    if (Array.isArray(current)) current = current[Number(key)];
    else if (current !== null && typeof current === 'object') current = current[key];
    else return undefined;
  }
  return current;
}

function stringify(value: JsonValue): string {
  if (value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
