/**
 * Reads one YAML file into documents, enforcing the limits of SPEC.md §1.3 (size, document count,
 * alias expansion) and keeping every node's source range for error positions.
 */
import { readFileSync, statSync } from 'node:fs';
import { type Document, isAlias, LineCounter, parseAllDocuments, visit, type YAMLError } from 'yaml';
import { isJsonObject } from '../types/json.ts';
import type { BundleDocument } from './bundle-document.ts';
import type { ProblemSink } from './problem-sink.ts';
import { locate } from './source-position.ts';

export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_DOCUMENTS = 100;
/** yaml's expansion budget per alias (its own measure of the "billion laughs" attack). */
export const MAX_ALIAS_COUNT = 100;

export interface FileOrigin {
  packageName: string;
  bundleRoot: string;
  builtin: boolean;
}

function reportYamlError(sink: ProblemSink, file: string, error: YAMLError, severity: 'error' | 'warning', more = 0): void {
  const pos = error.linePos?.[0];
  // prettyErrors appends " at line L, column C:" and a source excerpt; the position is reported separately.
  const first = (error.message.split('\n')[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, '');
  const message = more > 0 ? `${first} (${more} more YAML error(s) in this document may follow from it)` : first;
  sink.inFile(file, severity === 'error' ? 'E_CONFIG_PARSE_ERROR' : 'E_CONFIG_PARSE_WARNING', message, {
    line: pos?.line,
    column: pos?.col,
    severity,
  });
}

function firstAliasOffset(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node)) offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  return offset;
}

/** Parses `file`; problems go to `sink`; returns the documents that are mappings. */
export function readYamlFile(file: string, origin: FileOrigin, sink: ProblemSink): BundleDocument[] {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_FILE_BYTES) {
      sink.inFile(file, 'E_CONFIG_FILE_TOO_LARGE', `file is ${size} bytes; the limit is ${MAX_FILE_BYTES} bytes (1 MB)`, {
        suggestion: 'split the resources over several files (e.g. tools.yaml, agents.yaml)',
      });
      return [];
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    sink.inFile(file, 'E_CONFIG_READ_FAILED', `cannot read file: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }

  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const documents: Document.Parsed[] = Array.from(parsed);
  if (documents.length > MAX_DOCUMENTS) {
    const pos = lineCounter.linePos(documents[MAX_DOCUMENTS]?.range[0] ?? 0);
    sink.inFile(file, 'E_CONFIG_TOO_MANY_DOCUMENTS', `file holds ${documents.length} documents; the limit is ${MAX_DOCUMENTS}`, {
      line: pos.line,
      column: pos.col,
      suggestion: 'split the documents over several files',
    });
    return [];
  }

  const result: BundleDocument[] = [];
  documents.forEach((doc, docIndex) => {
    for (const warning of doc.warnings) reportYamlError(sink, file, warning, 'warning');
    const [firstError] = doc.errors;
    if (firstError) {
      // Later syntax errors of a document usually cascade from the first one: report that one.
      reportYamlError(sink, file, firstError, 'error', doc.errors.length - 1);
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      const pos = lineCounter.linePos(firstAliasOffset(doc) ?? doc.range[0]);
      const aliasBomb = error instanceof ReferenceError && /alias/i.test(error.message);
      sink.inFile(
        file,
        aliasBomb ? 'E_CONFIG_ALIAS_LIMIT' : 'E_CONFIG_PARSE_ERROR',
        aliasBomb
          ? `YAML aliases expand beyond the limit (maxAliasCount ${MAX_ALIAS_COUNT}); the document is rejected`
          : `cannot convert the document: ${error instanceof Error ? error.message : String(error)}`,
        { line: pos.line, column: pos.col },
      );
      return;
    }
    if (value === null || value === undefined) return; // empty documents are skipped (SPEC.md §1.1)
    if (!isJsonObject(value)) {
      const { line, column } = locate(doc, lineCounter, []);
      sink.inFile(file, 'E_CONFIG_DOCUMENT_NOT_MAPPING', `document ${docIndex} is a ${Array.isArray(value) ? 'list' : typeof value}, not a resource mapping`, {
        line,
        column,
        suggestion: 'each YAML document is one resource: apiVersion, kind, metadata, spec',
      });
      return;
    }
    result.push({ file, docIndex, doc, lineCounter, value, ...origin });
  });
  return result;
}
