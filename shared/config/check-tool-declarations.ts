/**
 * The export declarations of issue 17: a Tool without `entry` must answer every export over
 * `http`; templates (`summary`, `http.url` / `headers` / `body`) may only name declared arguments
 * (`{{args.x}}`) or config keys (`{{config.x}}`); `timeoutFromArg` names a declared argument; a
 * `timeoutMs` in a tool's config (the engine's per-call limit) is a positive integer.
 */
import { placeholdersOf } from '../templates/call-template.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../types/json.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import { didYouMean } from './closest-names.ts';
import type { PathSegment } from './json-path.ts';
import type { ProblemSink } from './problem-sink.ts';

export function checkToolDeclarations(doc: NamedDocument, sink: ProblemSink): void {
  const spec = specOf(doc);
  const exports = spec?.exports;
  if (!spec || !Array.isArray(exports)) return;
  const withoutHttp = exports.flatMap((item) => (isJsonObject(item) && item.http === undefined ? [String(item.name)] : []));
  if (spec.entry === undefined && withoutHttp.length > 0) {
    sink.at(doc, ['spec'], 'E_CONFIG_TOOL_ENTRY_REQUIRED', `Tool "${doc.name}" has no entry, but export(s) ${withoutHttp.join(', ')} declare no http request`, {
      target: 'key',
      suggestion: 'add entry: ./tools/<name>/index.ts exporting handlers for them, or give each export an http: {method, url} request',
    });
  }
  exports.forEach((item, i) => {
    if (isJsonObject(item)) checkExportTemplates(doc, item, ['spec', 'exports', i], sink);
  });
  checkTimeoutConfig(doc, spec.config, ['spec', 'config'], sink);
}

/** `Agent.spec.tools[].config.timeoutMs`. */
export function checkAgentToolTimeouts(doc: NamedDocument, sink: ProblemSink): void {
  const tools = specOf(doc)?.tools;
  if (!Array.isArray(tools)) return;
  tools.forEach((item, i) => {
    if (isJsonObject(item)) checkTimeoutConfig(doc, item.config, ['spec', 'tools', i, 'config'], sink);
  });
}

function checkTimeoutConfig(doc: NamedDocument, config: JsonValue | undefined, at: PathSegment[], sink: ProblemSink): void {
  if (!isJsonObject(config) || config.timeoutMs === undefined) return;
  const value = config.timeoutMs;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return;
  sink.at(doc, [...at, 'timeoutMs'], 'E_CONFIG_SCHEMA_INVALID', `${at.join('.')}.timeoutMs must be a positive integer (milliseconds), got ${JSON.stringify(value)}`, {
    suggestion: 'timeoutMs: 600000   # the engine\'s time limit per call of this tool, here 10 minutes',
  });
}

function declaredArgs(exportSpec: JsonObject): string[] {
  const parameters = exportSpec.parameters;
  const properties = isJsonObject(parameters) ? parameters.properties : undefined;
  return isJsonObject(properties) ? Object.keys(properties) : [];
}

/** Every template of an export with its path: summary, http.url, http.headers.*, string leaves of http.body. */
function templatesOf(exportSpec: JsonObject, at: PathSegment[]): Array<{ text: string; segments: PathSegment[] }> {
  const found: Array<{ text: string; segments: PathSegment[] }> = [];
  if (typeof exportSpec.summary === 'string') found.push({ text: exportSpec.summary, segments: [...at, 'summary'] });
  const http = exportSpec.http;
  if (!isJsonObject(http)) return found;
  if (typeof http.url === 'string') found.push({ text: http.url, segments: [...at, 'http', 'url'] });
  if (isJsonObject(http.headers)) {
    for (const [name, value] of Object.entries(http.headers)) if (typeof value === 'string') found.push({ text: value, segments: [...at, 'http', 'headers', name] });
  }
  const walk = (value: JsonValue | undefined, segments: PathSegment[]): void => {
    if (typeof value === 'string') found.push({ text: value, segments });
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...segments, i]));
    else if (isJsonObject(value)) for (const [k, v] of Object.entries(value)) walk(v, [...segments, k]);
  };
  walk(http.body, [...at, 'http', 'body']);
  return found;
}

function checkExportTemplates(doc: NamedDocument, exportSpec: JsonObject, at: PathSegment[], sink: ProblemSink): void {
  const declared = declaredArgs(exportSpec);
  const exportName = String(exportSpec.name);
  const declaredText = declared.length > 0 ? `its parameters declare: ${declared.join(', ')}` : 'its parameters declare no properties';
  for (const { text, segments } of templatesOf(exportSpec, at)) {
    for (const placeholder of placeholdersOf(text)) {
      if (placeholder.scope === undefined) {
        sink.at(doc, segments, 'E_CONFIG_TEMPLATE_PLACEHOLDER', `${placeholder.raw} in export "${exportName}" is not a placeholder: write {{args.<argument>}} or {{config.<key>}}`, {
          suggestion: `e.g. {{args.${placeholder.expression || 'name'}}}`,
        });
        continue;
      }
      const [name] = placeholder.path;
      if (placeholder.scope !== 'args' || (name !== undefined && declared.includes(name))) continue;
      sink.at(doc, segments, 'E_CONFIG_UNDECLARED_ARG', `${placeholder.raw} in export "${exportName}" names an argument that ${declaredText}`, {
        suggestion: (name ? didYouMean(name, declared) : undefined) ?? `declare it under parameters.properties, or use one of: ${declared.join(', ') || '(none)'}`,
      });
    }
  }
  const fromArg = exportSpec.timeoutFromArg;
  if (typeof fromArg === 'string' && !declared.includes(fromArg)) {
    sink.at(doc, [...at, 'timeoutFromArg'], 'E_CONFIG_UNDECLARED_ARG', `timeoutFromArg of export "${exportName}" names "${fromArg}", an argument that ${declaredText}`, {
      suggestion: didYouMean(fromArg, declared) ?? 'name the integer argument that holds the call\'s own time limit in milliseconds',
    });
  }
}
