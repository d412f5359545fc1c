/** Text form of problems for terminals: `file:line:col  CODE  message` and `  hint: suggestion`. */
import { isAbsolute, join, relative } from 'node:path';
import { ERROR_DOCS_LOCAL_DIR, errorDocPage } from '../error-help.ts';
import type { ConfigProblem } from '../types/bundle.ts';

function shownPath(file: string, cwd: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(cwd, file);
  return rel === '' ? file : rel;
}

export function formatProblemsText(problems: readonly ConfigProblem[], cwd: string): string {
  return problems
    .map((p) => {
      // Messages of schema problems already start with their path; don't print it twice.
      const where = p.path && !p.message.startsWith(p.path) ? `${p.path}: ` : '';
      const head = `${shownPath(p.file, cwd)}:${p.line}:${p.column}  ${p.code}  ${where}${p.message}`;
      if (p.suggestion === undefined) return head;
      const [first = '', ...rest] = p.suggestion.split('\n');
      return [head, `  hint: ${first}`, ...rest.map((line) => `        ${line}`)].join('\n');
    })
    .join('\n');
}

/** One line naming the local pages that explain the problems' codes (undefined when none has a page). */
export function formatHelpPages(problems: readonly ConfigProblem[]): string | undefined {
  const pages = [...new Set(problems.flatMap((p) => errorDocPage(p.code) ?? []))];
  return pages.length === 0 ? undefined : `codes explained in: ${pages.map((page) => join(ERROR_DOCS_LOCAL_DIR, page)).join(', ')}`;
}
