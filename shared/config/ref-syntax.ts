/**
 * Parses one reference value (SPEC.md §1.1): `"Kind/name"` (exactly one "/", not at either end),
 * `{kind, name, package?, apiVersion?}`, or an item `{ref, config?}`. Selectors are rejected.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../types/json.ts';
import { API_VERSION, RESOURCE_KINDS, type ResourceKind } from '../types/resources.ts';
import { didYouMean } from './closest-names.ts';
import { isResourceKind } from './check-envelope.ts';
import type { PathSegment } from './json-path.ts';
import type { ProblemCode } from './problem-codes.ts';
import type { RefPosition } from './ref-positions.ts';

export interface ParsedRef {
  kind: ResourceKind;
  name: string;
  package?: string;
}

export interface RefSyntaxProblem {
  code: ProblemCode;
  message: string;
  suggestion?: string;
  /** Relative to the reference's own path. */
  subPath: PathSegment[];
  target?: 'key' | 'value';
}

export type RefParse = { ok: true; ref: ParsedRef; config?: JsonObject } | { ok: false; problems: RefSyntaxProblem[] };

const REF_KEYS = new Set(['kind', 'name', 'package', 'apiVersion']);

function fail(code: ProblemCode, message: string, subPath: PathSegment[] = [], suggestion?: string, target?: 'key'): RefParse {
  const problem: RefSyntaxProblem = { code, message, subPath };
  if (suggestion !== undefined) problem.suggestion = suggestion;
  if (target !== undefined) problem.target = target;
  return { ok: false, problems: [problem] };
}

function checkKind(kind: ResourceKind, expected: ResourceKind, shown: string, subPath: PathSegment[]): RefParse | undefined {
  if (kind === expected) return undefined;
  const an = (word: string) => (/^[AEIOU]/.test(word) ? `an ${word}` : `a ${word}`);
  return fail('E_CONFIG_REF_KIND_MISMATCH', `${shown} is ${an(kind)} reference; this field needs ${an(expected)}`, subPath, `reference ${an(expected)}, e.g. "${expected}/<name>"`);
}

function parseString(text: string, expected: ResourceKind, subPath: PathSegment[]): RefParse {
  const parts = text.split('/');
  const [kind, name] = parts;
  if (parts.length !== 2 || !kind || !name) {
    const suggestion = !text.includes('/') && text !== '' ? `"${expected}/${text}"` : `"${expected}/<name>"`;
    return fail('E_CONFIG_INVALID_REF', `invalid reference "${text}": write "Kind/name" with exactly one "/"`, subPath, `write ${suggestion}`);
  }
  if (!isResourceKind(kind)) {
    return fail('E_CONFIG_INVALID_REF', `invalid reference "${text}": unknown kind "${kind}"`, subPath, didYouMean(kind, RESOURCE_KINDS) ?? `write "${expected}/${name}"`);
  }
  return checkKind(kind, expected, `"${text}"`, subPath) ?? { ok: true, ref: { kind, name } };
}

function parseObject(value: JsonObject, expected: ResourceKind, subPath: PathSegment[]): RefParse {
  const problems: RefSyntaxProblem[] = [];
  for (const key of Object.keys(value)) {
    if (!REF_KEYS.has(key)) {
      problems.push({
        code: 'E_CONFIG_INVALID_REF',
        message: `unknown field "${key}" in a reference (allowed: kind, name, package, apiVersion)`,
        subPath: [...subPath, key],
        target: 'key',
        suggestion: didYouMean(key, REF_KEYS) ?? 'remove the field',
      });
    }
  }
  const { kind, name, package: pkg, apiVersion } = value;
  if (!isResourceKind(kind)) {
    problems.push({
      code: 'E_CONFIG_INVALID_REF',
      message: kind === undefined ? 'reference has no kind' : `reference has an unknown kind ${JSON.stringify(kind)}`,
      subPath: kind === undefined ? subPath : [...subPath, 'kind'],
      suggestion: `kind: ${expected}`,
    });
  }
  if (typeof name !== 'string' || name === '') {
    problems.push({ code: 'E_CONFIG_INVALID_REF', message: 'reference has no name (a non-empty string)', subPath: name === undefined ? subPath : [...subPath, 'name'] });
  }
  if (pkg !== undefined && (typeof pkg !== 'string' || pkg === '')) {
    problems.push({ code: 'E_CONFIG_INVALID_REF', message: 'reference package must be a non-empty string', subPath: [...subPath, 'package'] });
  }
  if (apiVersion !== undefined && apiVersion !== API_VERSION) {
    problems.push({ code: 'E_CONFIG_INVALID_REF', message: `reference apiVersion must be ${API_VERSION}`, subPath: [...subPath, 'apiVersion'] });
  }
  if (problems.length > 0 || !isResourceKind(kind) || typeof name !== 'string') return { ok: false, problems };
  const mismatch = checkKind(kind, expected, `{kind: ${kind}, name: ${name}}`, [...subPath, 'kind']);
  if (mismatch) return mismatch;
  return { ok: true, ref: typeof pkg === 'string' ? { kind, name, package: pkg } : { kind, name } };
}

function parseRefLike(value: JsonValue, expected: ResourceKind, subPath: PathSegment[]): RefParse {
  if (typeof value === 'string') return parseString(value, expected, subPath);
  if (isJsonObject(value)) {
    if ('selector' in value) {
      return fail('E_CONFIG_SELECTOR_UNSUPPORTED', 'label selectors are not supported', [...subPath, 'selector'], `reference the resource by name: "${expected}/<name>"`, 'key');
    }
    return parseObject(value, expected, subPath);
  }
  return fail('E_CONFIG_INVALID_REF', `a reference must be "Kind/name" or {kind, name}, not ${value === null ? 'null' : typeof value}`, subPath, `write "${expected}/<name>"`);
}

/** Parses the value at a reference position. */
export function parseRef(value: JsonValue, position: RefPosition): RefParse {
  if (!position.item || !isJsonObject(value) || !('ref' in value || 'config' in value || 'overrides' in value)) {
    return parseRefLike(value, position.expected, []);
  }
  const problems: RefSyntaxProblem[] = [];
  const allowed = position.config ? ['ref', 'config'] : ['ref'];
  for (const key of Object.keys(value)) {
    if (key === 'overrides') {
      problems.push({ code: 'E_CONFIG_SELECTOR_UNSUPPORTED', message: 'selector overrides are not supported', subPath: [key], target: 'key', suggestion: position.config ? 'use config: {…} to override settings' : 'remove overrides' });
    } else if (!allowed.includes(key)) {
      problems.push({ code: 'E_CONFIG_INVALID_REF', message: `unknown field "${key}" in a reference item (allowed: ${allowed.join(', ')})`, subPath: [key], target: 'key', suggestion: didYouMean(key, allowed) ?? 'remove the field' });
    }
  }
  const config = value.config;
  if (position.config && config !== undefined && !isJsonObject(config)) {
    problems.push({ code: 'E_CONFIG_SCHEMA_INVALID', message: 'config must be an object', subPath: ['config'] });
  }
  const inner = value.ref;
  if (inner === undefined) {
    problems.push({ code: 'E_CONFIG_INVALID_REF', message: 'reference item has no ref', subPath: [], suggestion: `ref: "${position.expected}/<name>"` });
    return { ok: false, problems };
  }
  const parsed = parseRefLike(inner, position.expected, ['ref']);
  if (!parsed.ok) return { ok: false, problems: [...problems, ...parsed.problems] };
  if (problems.length > 0) return { ok: false, problems };
  return isJsonObject(config) ? { ok: true, ref: parsed.ref, config } : { ok: true, ref: parsed.ref };
}

/** `Kind/name` (plus `@package`) for messages. */
export function showRef(ref: ParsedRef): string {
  return `${ref.kind}/${ref.name}${ref.package ? ` in package ${ref.package}` : ''}`;
}
