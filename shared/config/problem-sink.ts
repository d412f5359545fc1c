/** Collects every problem of one load (errors and warnings) with its source position. */
import { withHelpUrl } from '../error-help.ts';
import type { ConfigProblem } from '../types/bundle.ts';
import type { BundleDocument } from './bundle-document.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import type { ProblemCode } from './problem-codes.ts';
import { locate, type PositionTarget } from './source-position.ts';

export type Severity = 'error' | 'warning';

export interface ReportOptions {
  suggestion?: string;
  /** Point at the key instead of the value (e.g. an unknown field). */
  target?: PositionTarget;
  severity?: Severity;
}

export class ProblemSink {
  readonly errors: ConfigProblem[] = [];
  readonly warnings: ConfigProblem[] = [];

  add(problem: ConfigProblem, severity: Severity = 'error'): void {
    (severity === 'error' ? this.errors : this.warnings).push(withHelpUrl(problem));
  }

  /** A problem at a path inside a document. */
  at(doc: BundleDocument, segments: readonly PathSegment[], code: ProblemCode, message: string, options: ReportOptions = {}): void {
    const { line, column } = locate(doc.doc, doc.lineCounter, segments, options.target);
    const problem: ConfigProblem = { code, message, file: doc.file, line, column, path: formatPath(segments) };
    if (options.suggestion !== undefined) problem.suggestion = options.suggestion;
    this.add(problem, options.severity ?? 'error');
  }

  /** A problem inside a module that a resource names: the module's file:line:col, the resource's JSON path. */
  inModule(position: { file: string; line: number; column?: number }, segments: readonly PathSegment[], code: ProblemCode, message: string, options: { suggestion?: string; severity?: Severity } = {}): void {
    const problem: ConfigProblem = { code, message, file: position.file, line: position.line, column: position.column ?? 1, path: formatPath(segments) };
    if (options.suggestion !== undefined) problem.suggestion = options.suggestion;
    this.add(problem, options.severity ?? 'error');
  }

  /** A problem about a whole file (line/column known or 1:1). */
  inFile(file: string, code: ProblemCode, message: string, options: { line?: number; column?: number; suggestion?: string; severity?: Severity } = {}): void {
    const problem: ConfigProblem = { code, message, file, line: options.line ?? 1, column: options.column ?? 1, path: '' };
    if (options.suggestion !== undefined) problem.suggestion = options.suggestion;
    this.add(problem, options.severity ?? 'error');
  }
}
