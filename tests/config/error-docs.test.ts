/**
 * Every error code is explained under docs/errors/ (one page per family, one `### CODE` heading
 * per code), and bundle problems carry that place as `helpUrl`.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadBundle, PROBLEM_CODES } from '../../shared/config/index.ts';
import { ERROR_DOCS_LOCAL_DIR, errorDocPage, helpUrlFor } from '../../shared/error-help.ts';
import { RUNTIME_ERRORS } from '../../shared/errors/runtime-errors.ts';
import { ERROR_FIXTURES_DIR } from './fixture-expectations.ts';


const REPO = join(import.meta.dir, '..', '..');
const SOURCE_DIRS = ['agent-process', 'connector-process', 'orchestrator', 'shared', 'bundles'];
/** A code as the source writes it: a quoted UPPERCASE identifier of a known shape, or a runtime error's code. */
const CODE_LITERAL = new RegExp(`['"\`]((?:E|W)_[A-Z0-9_]*[A-Z0-9]|AGENT_[A-Z0-9_]*[A-Z0-9]|${Object.keys(RUNTIME_ERRORS).join('|')})['"\`]`, 'g');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function codesInSource(): Map<string, string> {
  const where = new Map<string, string>();
  for (const file of SOURCE_DIRS.flatMap((d) => sourceFiles(join(REPO, d)))) {
    for (const match of readFileSync(file, 'utf8').matchAll(CODE_LITERAL)) {
      const code = match[1] ?? '';
      if (!where.has(code)) where.set(code, relative(REPO, file));
    }
  }
  return where;
}

/** `### CODE` headings of every page, as code → page. */
function documentedCodes(): Map<string, string> {
  const documented = new Map<string, string>();
  for (const page of readdirSync(ERROR_DOCS_LOCAL_DIR).filter((f) => f.endsWith('.md'))) {
    for (const match of readFileSync(join(ERROR_DOCS_LOCAL_DIR, page), 'utf8').matchAll(/^### ([A-Z][A-Z0-9_]+)$/gm)) documented.set(match[1] ?? '', page);
  }
  return documented;
}

const documented = documentedCodes();

describe('docs/errors explains every code', () => {
  test('every code in problem-codes.ts has a heading (its anchor) on its family page', () => {
    const missing = Object.keys(PROBLEM_CODES).filter((code) => documented.get(code) !== errorDocPage(code));
    expect(missing).toEqual([]);
  });

  test('every code the source can emit has a family page and a heading there', () => {
    const source = codesInSource();
    expect(source.size).toBeGreaterThan(100);
    const missing = [...source].filter(([code]) => documented.get(code) === undefined || documented.get(code) !== errorDocPage(code)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  test('no page documents a code that no longer exists', () => {
    const source = codesInSource();
    const stale = [...documented.keys()].filter((code) => !source.has(code) && !(code in PROBLEM_CODES));
    expect(stale).toEqual([]);
  });

  test('helpUrl is docs/errors/<page>#<lowercase code> and the page exists', () => {
    expect(helpUrlFor('E_CONFIG_REF_NOT_FOUND')).toBe('docs/errors/config.md#e_config_ref_not_found');
    expect(helpUrlFor('E_TOOL_HANDLERS_MISSING')).toBe('docs/errors/tool.md#e_tool_handlers_missing');
    for (const code of Object.keys(PROBLEM_CODES)) {
      const url = helpUrlFor(code) ?? '';
      expect(existsSync(join(REPO, url.split('#')[0] ?? ''))).toBe(true);
    }
  });
});

describe('config problems carry their helpUrl', () => {
  test('every problem of the error fixtures links to its code\'s entry', async () => {
    for (const name of ['ref-not-found', 'tool-handlers-missing', 'env-missing']) {
      const bundle = await loadBundle(join(ERROR_FIXTURES_DIR, name), { env: {} });
      const problems = [...bundle.errors, ...bundle.warnings];
      expect(problems.length).toBeGreaterThan(0);
      for (const problem of problems) expect(problem.helpUrl).toBe(helpUrlFor(problem.code));
    }
  });
});
