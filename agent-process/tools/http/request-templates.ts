/**
 * The request of a declared HTTP export rendered for one call: `{{args.x}}` in the URL is
 * percent-encoded (it cannot add path segments, a query or a host), `{{config.x}}` is inserted as
 * written (the operator's base URL); header values are rendered as text and may not break the
 * line; a JSON body keeps an argument's type when a string is exactly one placeholder.
 */
import { GoondanError } from '../../../shared/errors/index.ts';
import { type Placeholder, renderTemplate, solePlaceholder, lookup, type TemplateValues, valueText } from '../../../shared/templates/call-template.ts';
import { isJsonObject, type JsonValue } from '../../../shared/types/json.ts';
import type { HttpRequestPlan } from '../../../shared/types/bundle.ts';

export interface RenderedRequest {
  url: URL;
  headers: Headers;
  body?: string;
}

export function renderRequest(toolName: string, http: HttpRequestPlan, values: TemplateValues): RenderedRequest {
  const text = renderTemplate(http.url, values, (value, placeholder: Placeholder) => (placeholder.scope === 'args' ? encodeURIComponent(valueText(value)) : valueText(value)));
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new GoondanError('E_TOOL_HTTP_URL', 'tool', `${toolName}: the declared URL rendered to ${JSON.stringify(text)}, which is not an absolute URL`, {
      suggestion: 'This is a mistake in the Tool declaration (http.url); tell the operator. Check config.baseUrl-style values it uses.',
    });
  }
  const headers = new Headers({ 'user-agent': 'goondan-http-tool/0.1', accept: 'application/json, text/*;q=0.9, */*;q=0.8' });
  for (const [name, template] of Object.entries(http.headers ?? {})) {
    const value = renderTemplate(template, values);
    if (/[\r\n]/.test(value)) {
      throw new GoondanError('E_TOOL_INVALID_ARGS', 'tool', `${toolName}: header ${name} would contain a line break`, { suggestion: 'Pass values without line breaks.' });
    }
    headers.set(name, value);
  }
  if (http.body === undefined) return { url, headers };
  if (typeof http.body === 'string') {
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain; charset=utf-8');
    return { url, headers, body: renderTemplate(http.body, values) };
  }
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return { url, headers, body: JSON.stringify(renderJson(http.body, values) ?? null) };
}

/** String leaves rendered; a leaf that is one placeholder becomes the value itself (undefined = left out). */
function renderJson(value: JsonValue, values: TemplateValues): JsonValue | undefined {
  if (typeof value === 'string') {
    const sole = solePlaceholder(value);
    return sole?.scope !== undefined ? lookup(sole, values) : renderTemplate(value, values);
  }
  if (Array.isArray(value)) return value.map((item) => renderJson(item, values) ?? null);
  if (!isJsonObject(value)) return value;
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    const rendered = renderJson(item, values);
    if (rendered !== undefined) out[key] = rendered;
  }
  return out;
}
