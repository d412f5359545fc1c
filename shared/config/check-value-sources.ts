/** ValueSource shape (SPEC.md §1.1): exactly one of value / valueFrom, exactly one of env / secretRef. */
import { isJsonObject, type JsonObject, type JsonValue } from '../types/json.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import type { PathSegment } from './json-path.ts';
import type { ProblemSink } from './problem-sink.ts';

/** Every ValueSource position of a document with its value. */
export function valueSourceOccurrences(doc: NamedDocument): Array<{ segments: PathSegment[]; value: JsonValue }> {
  const spec = specOf(doc);
  if (!spec) return [];
  if (doc.kind === 'Model') return spec.apiKey === undefined ? [] : [{ segments: ['spec', 'apiKey'], value: spec.apiKey }];
  if (doc.kind === 'Tool') return httpHeaderSources(spec);
  if (doc.kind !== 'Connection') return [];
  const found: Array<{ segments: PathSegment[]; value: JsonValue }> = [];
  for (const field of ['config', 'secrets']) {
    const map = spec[field];
    if (!isJsonObject(map)) continue;
    for (const [key, value] of Object.entries(map)) found.push({ segments: ['spec', field, key], value });
  }
  return found;
}

/** `Tool.spec.exports[].http.headers.*` given as objects (credentials). */
function httpHeaderSources(spec: JsonObject): Array<{ segments: PathSegment[]; value: JsonValue }> {
  const exports = Array.isArray(spec.exports) ? spec.exports : [];
  return exports.flatMap((item, i) => {
    const headers = isJsonObject(item) && isJsonObject(item.http) ? item.http.headers : undefined;
    if (!isJsonObject(headers)) return [];
    return Object.entries(headers).flatMap(([name, value]) => (isJsonObject(value) ? [{ segments: ['spec', 'exports', i, 'http', 'headers', name], value }] : []));
  });
}

const EXAMPLE = 'write {value: "…"} or {valueFrom: {env: NAME}} or {valueFrom: {secretRef: {ref: "Secret/<name>", key: "<key>"}}}';

export function checkValueSources(doc: NamedDocument, sink: ProblemSink): void {
  for (const { segments, value } of valueSourceOccurrences(doc)) {
    if (!isJsonObject(value)) continue; // not an object: reported by the schema check
    const sources = ['value', 'valueFrom'].filter((k) => value[k] !== undefined);
    if (sources.length !== 1) {
      sink.at(doc, segments, 'E_CONFIG_INVALID_VALUE_SOURCE', sources.length === 0 ? 'a ValueSource needs value or valueFrom' : 'a ValueSource sets both value and valueFrom; use exactly one', {
        suggestion: EXAMPLE,
      });
      continue;
    }
    const from = value.valueFrom;
    if (!isJsonObject(from)) continue;
    const kinds = ['env', 'secretRef'].filter((k) => from[k] !== undefined);
    if (kinds.length !== 1) {
      sink.at(doc, [...segments, 'valueFrom'], 'E_CONFIG_INVALID_VALUE_SOURCE', kinds.length === 0 ? 'valueFrom needs env or secretRef' : 'valueFrom sets both env and secretRef; use exactly one', {
        suggestion: EXAMPLE,
      });
    }
  }
}
