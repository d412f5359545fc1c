/**
 * Templates over one tool call (issue 17): `{{args.<path>}}` reads the call's arguments and
 * `{{config.<path>}}` the tool's config (`Tool.spec.config` + the agent's `tools[].config`), with
 * dotted paths into objects and arrays (`{{args.items.0.id}}`). Used by an export's `summary` and
 * by HTTP exports (`http.url`, `headers`, `body`); `validate` checks the argument names.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../types/json.ts';

export const TEMPLATE_SCOPES = ['args', 'config'] as const;
export type TemplateScope = (typeof TEMPLATE_SCOPES)[number];

export interface Placeholder {
  /** As written, braces included. */
  raw: string;
  /** The expression inside the braces, trimmed (`args.id`). */
  expression: string;
  /** undefined when the expression does not start with a known scope. */
  scope?: TemplateScope;
  path: string[];
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export function placeholdersOf(template: string): Placeholder[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => placeholderOf(match[0], match[1] ?? ''));
}

function placeholderOf(raw: string, expression: string): Placeholder {
  const [head = '', ...path] = expression.split('.');
  const scope = TEMPLATE_SCOPES.find((s) => s === head);
  return scope === undefined ? { raw, expression, path: [] } : { raw, expression, scope, path };
}

/** The whole template is one placeholder (`"{{args.count}}"`): JSON bodies keep the value's type. */
export function solePlaceholder(template: string): Placeholder | undefined {
  const match = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(template);
  return match ? placeholderOf(match[0], match[1] ?? '') : undefined;
}

export interface TemplateValues {
  args: JsonObject;
  config: JsonObject;
}

/** The value a placeholder names; undefined when absent (or the scope is unknown). */
export function lookup(placeholder: Placeholder, values: TemplateValues): JsonValue | undefined {
  if (placeholder.scope === undefined) return undefined;
  let current: JsonValue | undefined = values[placeholder.scope];
  for (const key of placeholder.path) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isJsonObject(current)) current = current[key];
    else return undefined;
  }
  return current;
}

/** A value as text: strings as they are, absent or null as '', other values as JSON. */
export function valueText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Renders `template`; `place` turns each placeholder's value into the text put in its place
 * (default: valueText). A placeholder of an unknown scope is left as written, so a typo shows.
 */
export function renderTemplate(template: string, values: TemplateValues, place: (value: JsonValue | undefined, placeholder: Placeholder) => string = valueText): string {
  return template.replace(PLACEHOLDER, (raw: string, expression: string) => {
    const placeholder = placeholderOf(raw, expression);
    return placeholder.scope === undefined ? raw : place(lookup(placeholder, values), placeholder);
  });
}
