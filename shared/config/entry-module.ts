/**
 * What an entry module exports, read without running it: Bun.Transpiler parses it (the same parser
 * that will load it, so a syntax error here is one at run time) and `scan()` lists its exports.
 * Re-exports (`export { x } from './y'`, `export * from './y'`) are followed into relative modules.
 * Limits, by design: a CommonJS module or a re-export of a package is "unknown" (never an error).
 */
import { readFileSync } from 'node:fs';
import { dirname, extname } from 'node:path';

export interface ModuleSyntaxError {
  file: string;
  message: string;
  line: number;
  column: number;
}

export interface ParsedModule {
  file: string;
  source: string;
  /** The module as JavaScript (types and comments removed), where definitions are looked up. */
  js: string;
  exports: ReadonlySet<string>;
}

export type ExportLookup =
  /** `localName` is declared at the top level of `module`. */
  | { kind: 'found'; module: ParsedModule; localName: string }
  | { kind: 'missing' }
  /** Cannot be known statically (CommonJS, a package re-export); never reported. */
  | { kind: 'unknown' }
  | { kind: 'syntax'; error: ModuleSyntaxError };

type Loader = 'ts' | 'tsx' | 'js' | 'jsx';
const LOADERS: Readonly<Record<string, Loader>> = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx' };
/** Re-export chains deeper than this are left unknown (and a cycle ends here). */
const MAX_REEXPORT_DEPTH = 8;

const transpilers = new Map<Loader, InstanceType<typeof Bun.Transpiler>>();
function transpilerFor(loader: Loader): InstanceType<typeof Bun.Transpiler> {
  let transpiler = transpilers.get(loader);
  if (!transpiler) {
    transpiler = new Bun.Transpiler({ loader });
    transpilers.set(loader, transpiler);
  }
  return transpiler;
}

interface BuildMessageLike {
  message: string;
  position?: { line: number; column: number } | null;
}

function isBuildMessage(value: unknown): value is BuildMessageLike {
  return typeof value === 'object' && value !== null && 'message' in value && typeof value.message === 'string';
}

/** The first positioned error Bun reports (a single message, or an AggregateError of them). */
function syntaxErrorOf(file: string, error: unknown): ModuleSyntaxError {
  const candidates: unknown[] = error instanceof AggregateError ? error.errors : [error];
  const first = candidates.find(isBuildMessage);
  const position = first?.position;
  const message = (first?.message ?? (error instanceof Error ? error.message : String(error))).trim();
  return { file, message, line: position?.line ?? 1, column: position?.column ?? 1 };
}

/** Undefined for a file that cannot be read or is not a script Bun can import by extension. */
export function parseModule(file: string): ParsedModule | ModuleSyntaxError | undefined {
  const loader = LOADERS[extname(file)];
  if (!loader) return undefined;
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined; // a missing entry is reported by checkPaths
  }
  const transpiler = transpilerFor(loader);
  try {
    const js = transpiler.transformSync(source);
    return { file, source, js, exports: new Set(transpiler.scan(source).exports) };
  } catch (error) {
    return syntaxErrorOf(file, error);
  }
}

export function isSyntaxError(value: ParsedModule | ModuleSyntaxError): value is ModuleSyntaxError {
  return 'message' in value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `a`, `a as b`, `default as b` entries of one `export { … }` clause. */
function clauseEntries(clause: string): Array<{ local: string; exported: string }> {
  return clause
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [local = '', exported] = part.split(/\s+as\s+/);
      return { local: local.replace(/^["']|["']$/g, ''), exported: (exported ?? local).replace(/^["']|["']$/g, '') };
    });
}

const EXPORT_CLAUSE = /^export\s*\{([^}]*)\}(?:\s*from\s*"([^"]+)")?/gm;
const STAR_EXPORT = /^export\s*\*\s*from\s*"([^"]+)"/gm;
const COMMONJS = /\bmodule\.exports\b|\bexports\.[\w$]+\s*=/;

function resolveRelative(specifier: string, fromFile: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  try {
    return Bun.resolveSync(specifier, dirname(fromFile));
  } catch {
    return undefined;
  }
}

function lookupIn(file: string, name: string, depth: number): ExportLookup {
  if (depth > MAX_REEXPORT_DEPTH) return { kind: 'unknown' };
  const parsed = parseModule(file);
  if (parsed === undefined) return { kind: 'unknown' };
  if (isSyntaxError(parsed)) return { kind: 'syntax', error: parsed };
  return lookupExport(parsed, name, depth);
}

/** Where `name` is defined, following re-exports into relative modules. */
export function lookupExport(module: ParsedModule, name: string, depth = 0): ExportLookup {
  if (module.exports.has(name)) {
    for (const match of module.js.matchAll(EXPORT_CLAUSE)) {
      const entry = clauseEntries(match[1] ?? '').find((e) => e.exported === name);
      if (!entry) continue;
      const from = match[2];
      if (from === undefined) return { kind: 'found', module, localName: entry.local };
      const target = resolveRelative(from, module.file);
      return target === undefined ? { kind: 'unknown' } : lookupIn(target, entry.local, depth + 1);
    }
    return { kind: 'found', module, localName: name }; // `export const name = …`, `export function name`
  }
  let unknown = COMMONJS.test(module.js) && module.exports.size === 0;
  for (const match of module.js.matchAll(STAR_EXPORT)) {
    const target = resolveRelative(match[1] ?? '', module.file);
    if (target === undefined) {
      unknown = true;
      continue;
    }
    const found = lookupIn(target, name, depth + 1);
    if (found.kind !== 'missing') return found;
  }
  return unknown ? { kind: 'unknown' } : { kind: 'missing' };
}

/** Index of the first character of `localName`'s initializer (`const localName = <here>`), if any. */
export function initializerStart(module: ParsedModule, localName: string): number | undefined {
  const declaration = new RegExp(`^(?:export\\s+)?(?:const|let|var)\\s+${escapeRegExp(localName)}\\s*=\\s*`, 'm').exec(module.js);
  return declaration ? declaration.index + declaration[0].length : undefined;
}

/**
 * Whether the module adds to `localName` after declaring it (`handlers.run = …`,
 * `handlers['run'] = …`, `Object.assign(handlers, …)`, a reassignment): its literal keys are
 * then not all its keys.
 */
export function isExtendedLater(module: ParsedModule, localName: string): boolean {
  const name = escapeRegExp(localName);
  return [
    new RegExp(`(?<![\\w$.])${name}\\s*(?:\\.\\s*[\\w$]+|\\[[^\\]]*\\])\\s*=(?!=)`),
    new RegExp(`\\bObject\\.(?:assign|defineProperty|defineProperties)\\(\\s*${name}\\b`),
    new RegExp(`(?<![\\w$.])(?<!(?:const|let|var)\\s+)${name}\\s*=(?![=>])`),
  ].some((pattern) => pattern.test(module.js));
}

/** 1-based line of `localName`'s declaration in the original source (1 when not found). */
export function declarationLine(module: ParsedModule, localName: string): number {
  const name = escapeRegExp(localName);
  const patterns = [new RegExp(`\\b(?:const|let|var|function|class)\\s+${name}\\b`), new RegExp(`\\b${name}\\b`)];
  const lines = module.source.split('\n');
  for (const pattern of patterns) {
    const index = lines.findIndex((line) => pattern.test(line));
    if (index >= 0) return index + 1;
  }
  return 1;
}

/** 1-based line, at or after `fromLine`, where the source names property `key` (else `fromLine`). */
export function propertyLine(module: ParsedModule, key: string, fromLine: number): number {
  const pattern = new RegExp(`(?:^|[\\s{,])(["']?)${escapeRegExp(key)}\\1\\s*[:(,}]|(?:^|[\\s{,])["']?${escapeRegExp(key)}["']?\\s*$`);
  const lines = module.source.split('\n');
  for (let i = Math.max(0, fromLine - 1); i < lines.length; i++) if (pattern.test(lines[i] ?? '')) return i + 1;
  return fromLine;
}
