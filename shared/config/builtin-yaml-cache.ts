/**
 * The documents of the built-in `@goondan/base` package, parsed once and cached: its ~45 KB of
 * YAML took ~60 % of every `goondan validate` and daemon start with the position-keeping `yaml`
 * parser. The cache (BUILD_CACHE_DIR, keyed by the files' size and mtime) holds each document's
 * value and start position; a check that needs a position inside a built-in document parses that
 * file then. Files with any parse problem are never cached (their problems are reported afresh).
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, LineCounter, parseAllDocuments } from 'yaml';
import { BUILD_CACHE_DIR, packageRequire } from '../package-root.ts';
import { replaceFile } from '../replace-file.ts';
import type { JsonObject } from '../types/json.ts';
import type { BundleDocument } from './bundle-document.ts';
import { ProblemSink } from './problem-sink.ts';
import { locate } from './source-position.ts';
import { type FileOrigin, readYamlFile } from './yaml-file.ts';

interface CachedDocument {
  file: string;
  docIndex: number;
  value: JsonObject;
  line: number;
  column: number;
}

/** Bump when the cached shape changes. */
const CACHE_VERSION = 1;
const CACHE_DIR = join(BUILD_CACHE_DIR, 'config');

export function loadBuiltinDocuments(files: readonly string[], origin: FileOrigin, sink: ProblemSink): BundleDocument[] {
  const path = join(CACHE_DIR, `base-${cacheKey(files)}.json`);
  const cached = readCache(path);
  if (cached) return cached.map((entry) => lazyDocument(entry, origin));
  const local = new ProblemSink();
  const docs = files.flatMap((file) => readYamlFile(file, origin, local));
  for (const problem of local.errors) sink.add(problem, 'error');
  for (const problem of local.warnings) sink.add(problem, 'warning');
  if (local.errors.length === 0 && local.warnings.length === 0) {
    writeCache(
      path,
      docs.map((doc) => ({ file: doc.file, docIndex: doc.docIndex, value: doc.value, ...locate(doc.doc, doc.lineCounter, []) })),
    );
  }
  return docs;
}

function lazyDocument(entry: CachedDocument, origin: FileOrigin): BundleDocument {
  return {
    ...origin,
    file: entry.file,
    docIndex: entry.docIndex,
    value: entry.value,
    rootPosition: { line: entry.line, column: entry.column },
    get doc(): Document {
      const doc = parsedFile(entry.file).documents[entry.docIndex];
      if (!doc) throw new Error(`${entry.file}: document ${entry.docIndex} is gone (the file changed while loading)`);
      return doc;
    },
    get lineCounter(): LineCounter {
      return parsedFile(entry.file).lineCounter;
    },
  };
}

const parsed = new Map<string, { documents: Document.Parsed[]; lineCounter: LineCounter }>();

function parsedFile(file: string): { documents: Document.Parsed[]; lineCounter: LineCounter } {
  let entry = parsed.get(file);
  if (!entry) {
    const lineCounter = new LineCounter();
    const documents: Document.Parsed[] = Array.from(parseAllDocuments(readFileSync(file, 'utf8'), { lineCounter, uniqueKeys: true }));
    entry = { documents, lineCounter };
    parsed.set(file, entry);
  }
  return entry;
}

function cacheKey(files: readonly string[]): string {
  const pkg: unknown = packageRequire('yaml/package.json');
  const yamlVersion = typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : '?';
  const stamps = files.map((file) => {
    try {
      const stats = statSync(file);
      return `${file}:${stats.size}:${stats.mtimeMs}`;
    } catch {
      return `${file}:-`;
    }
  });
  return Bun.hash(JSON.stringify([CACHE_VERSION, yamlVersion, stamps])).toString(16).padStart(16, '0');
}

function readCache(path: string): CachedDocument[] | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return Array.isArray(value) && value.every(isCachedDocument) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isCachedDocument(value: unknown): value is CachedDocument {
  if (typeof value !== 'object' || value === null) return false;
  const entry: Record<string, unknown> = { ...value };
  return (
    typeof entry.file === 'string' &&
    typeof entry.docIndex === 'number' &&
    typeof entry.line === 'number' &&
    typeof entry.column === 'number' &&
    typeof entry.value === 'object' &&
    entry.value !== null &&
    !Array.isArray(entry.value)
  );
}

function writeCache(path: string, documents: CachedDocument[]): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    replaceFile(path, JSON.stringify(documents));
  } catch {
    // A cache that cannot be written only costs speed.
  }
}
