/**
 * What loadBundle knows beyond the public LoadedBundle: the parsed documents (for source positions
 * of plan-time problems). Kept in a WeakMap so LoadedBundle stays a plain, serialisable object.
 */
import { withHelpUrl } from '../error-help.ts';
import type { ConfigProblem, LoadedBundle, LoadedResource } from '../types/bundle.ts';
import type { NamedDocument } from './bundle-document.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import type { ProblemCode } from './problem-codes.ts';
import { locate } from './source-position.ts';

const documents = new WeakMap<LoadedResource, NamedDocument>();

export function rememberDocument(resource: LoadedResource, doc: NamedDocument): void {
  documents.set(resource, doc);
}

/** A problem at a path inside a loaded resource (the document start when positions are unknown). */
export function problemAt(resource: LoadedResource, segments: readonly PathSegment[], code: ProblemCode, message: string, suggestion?: string): ConfigProblem {
  const doc = documents.get(resource);
  const { line, column } = doc ? locate(doc.doc, doc.lineCounter, segments) : resource.source;
  const problem: ConfigProblem = { code, message, file: resource.source.file, line, column, path: formatPath(segments) };
  if (suggestion !== undefined) problem.suggestion = suggestion;
  return withHelpUrl(problem);
}

/** A problem about the bundle as a whole (no single resource to point at). */
export function bundleProblem(bundle: LoadedBundle, code: ProblemCode, message: string, suggestion?: string): ConfigProblem {
  const problem: ConfigProblem = { code, message, file: bundle.files[bundle.files.length - 1] ?? bundle.rootDir, line: 1, column: 1, path: '' };
  if (suggestion !== undefined) problem.suggestion = suggestion;
  return withHelpUrl(problem);
}
