/**
 * The script format of the `mock` provider (`Model.spec.options`, docs/mock-model.md): one JSON
 * Schema and one readable description of its problems, used both by `goondan validate` (each
 * problem at its file:line) and by the mock provider when an agent starts (E_MODEL_CONFIG).
 */
import type { ErrorObject } from 'ajv';
import type { JsonObject } from '../types/json.ts';
import { isJsonObject } from '../types/json.ts';
import { compiledValidator, type Validator } from '../validation/compiled-validator.ts';
import { formatPath, type PathSegment, pointerToSegments } from './json-path.ts';

export interface MockToolCallSpec {
  name: string;
  args?: JsonObject;
}
export interface MockStepSpec {
  toolCalls: MockToolCallSpec[];
  then?: string | MockStepSpec;
}
export interface MockRuleSpec {
  match?: string;
  regex?: string;
  flags?: string;
  reply?: string;
  toolCalls?: MockToolCallSpec[];
  then?: string | MockStepSpec;
}
export interface MockScriptSpec {
  latencyMs?: number;
  chunkDelayMs?: number;
  rules?: MockRuleSpec[];
  default?: string;
}

/** One mistake in a script: where (relative to `spec.options`) and what, in words. */
export interface MockScriptProblem {
  path: PathSegment[];
  message: string;
}

export const MOCK_SCRIPT_HINT = 'Each rule needs exactly one of match/regex and exactly one of reply/toolCalls; `then` follows toolCalls only. See docs/mock-model.md.';

const toolCallsSchema = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1 }, args: { type: 'object' } },
  },
} as const;

const RULE_KEYS = ['match', 'regex', 'flags', 'reply', 'toolCalls', 'then'];

export const isMockScript: Validator<MockScriptSpec> = compiledValidator<MockScriptSpec>({
  schema: {
    $id: 'goondan:mock-script',
    type: 'object',
    additionalProperties: false,
    $defs: {
      step: {
        type: 'object',
        additionalProperties: false,
        required: ['toolCalls'],
        properties: { toolCalls: toolCallsSchema, then: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/step' }] } },
      },
    },
    properties: {
      latencyMs: { type: 'number', minimum: 0 },
      chunkDelayMs: { type: 'number', minimum: 0 },
      default: { type: 'string' },
      rules: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            match: { type: 'string', minLength: 1 },
            regex: { type: 'string', minLength: 1 },
            flags: { type: 'string', pattern: '^[dgimsuvy]*$' },
            reply: { type: 'string' },
            toolCalls: toolCallsSchema,
            then: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/step' }] },
          },
          oneOf: [{ required: ['match'] }, { required: ['regex'] }],
          allOf: [{ oneOf: [{ required: ['reply'] }, { required: ['toolCalls'] }] }, { if: { required: ['reply'] }, then: { not: { required: ['then'] } } }],
        },
      },
    },
  },
  options: { allErrors: true, strict: false, allowUnionTypes: true },
  formats: true,
});

/** Every problem of a script, [] when it is valid (the schema, and regexes that do not compile). */
export function mockScriptProblems(options: unknown): MockScriptProblem[] {
  const rules = isJsonObject(options) && Array.isArray(options.rules) ? options.rules : [];
  const valid = isMockScript(options);
  const problems = rules.flatMap((rule, index) => [...(valid ? [] : ruleProblems(rule, index)), ...regexProblems(rule, index)]);
  if (valid) return problems;
  const seen = new Set(problems.map((problem) => problem.message));
  for (const error of isMockScript.errors ?? []) {
    const problem = schemaProblem(error);
    if (problem === undefined || seen.has(problem.message)) continue;
    seen.add(problem.message);
    problems.push(problem);
  }
  return problems;
}

/** The problems in one line (each names its rule). */
export function describeMockScriptProblems(problems: readonly MockScriptProblem[]): string {
  return problems.map((problem) => problem.message).join('; ');
}

/** The mistakes the schema states with oneOf/allOf/anyOf, said per rule in words. */
function ruleProblems(rule: unknown, index: number): MockScriptProblem[] {
  const at: PathSegment[] = ['rules', index];
  if (!isJsonObject(rule)) return [{ path: at, message: `rule ${index} must be an object like { match, reply }` }];
  const problems: MockScriptProblem[] = [];
  const has = (key: string): boolean => rule[key] !== undefined;
  if (has('match') && has('regex')) problems.push({ path: at, message: `rule ${index} has both match and regex; use one` });
  if (!has('match') && !has('regex')) problems.push({ path: at, message: `rule ${index} has neither match nor regex; add one to say which messages it answers` });
  if (has('reply') && has('toolCalls')) problems.push({ path: at, message: `rule ${index} has both reply and toolCalls; use one` });
  if (!has('reply') && !has('toolCalls')) problems.push({ path: at, message: `rule ${index} has neither reply nor toolCalls; add one to say how it answers` });
  if (has('reply') && has('then')) problems.push({ path: [...at, 'then'], message: `rule ${index} has then after a reply; then follows toolCalls only` });
  problems.push(...thenProblems(rule.then, [...at, 'then'], index));
  return problems;
}

function thenProblems(then: unknown, path: PathSegment[], index: number): MockScriptProblem[] {
  if (then === undefined || typeof then === 'string') return [];
  if (!isJsonObject(then)) return [{ path, message: `rule ${index}: ${formatPath(path.slice(2))} must be a reply template (a string) or a further step { toolCalls, then }` }];
  return thenProblems(then.then, [...path, 'then'], index);
}

function regexProblems(rule: unknown, index: number): MockScriptProblem[] {
  if (!isJsonObject(rule) || typeof rule.regex !== 'string') return [];
  const flags = typeof rule.flags === 'string' && /^[dgimsuvy]*$/.test(rule.flags) ? rule.flags : '';
  try {
    // As the mock compiles it: `g`/`y` are dropped (they would make matching stateful).
    new RegExp(rule.regex, flags.replace(/[gy]/g, ''));
    return [];
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [{ path: ['rules', index, 'regex'], message: `rule ${index}: regex is not a valid regular expression: ${reason}` }];
  }
}

/** An ajv error in words, or undefined when ruleProblems already says it. */
function schemaProblem(error: ErrorObject): MockScriptProblem | undefined {
  if (['oneOf', 'allOf', 'anyOf', 'if', 'not'].includes(error.keyword)) return undefined;
  if (/\/(oneOf|allOf)\//.test(error.schemaPath) || error.schemaPath.includes('/anyOf/0/')) return undefined;
  const path = pointerToSegments(error.instancePath);
  // A rule that is not an object, a `then` neither string nor step: said by ruleProblems.
  if (error.keyword === 'type' && (path.at(-1) === 'then' || (path.length === 2 && path[0] === 'rules'))) return undefined;
  const at = where(path);
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(error.params.additionalProperty);
      const allowed = allowedKeys(path);
      return { path: [...path, key], message: `${at} has an unknown key "${key}" (allowed: ${allowed.join(', ')})` };
    }
    case 'required':
      return { path, message: `${at} is missing ${String(error.params.missingProperty)}` };
    case 'type':
      return { path, message: `${at} must be ${/^[aeiou]/.test(String(error.params.type)) ? 'an' : 'a'} ${String(error.params.type)}` };
    case 'pattern':
      return { path, message: `${at} may only use d, g, i, m, s, u, v, y` };
    case 'minItems':
      return { path, message: `${at} must list at least one tool call` };
    case 'minLength':
      return { path, message: `${at} must not be empty` };
    default:
      return { path, message: `${at} ${error.message ?? 'is invalid'}` };
  }
}

/** `rule 0: toolCalls[1].name`, `latencyMs`, `options`. */
function where(path: readonly PathSegment[]): string {
  if (path.length === 0) return 'options';
  const [first, second, ...rest] = path;
  if (first === 'rules' && typeof second === 'number') return rest.length === 0 ? `rule ${second}` : `rule ${second}: ${formatPath(rest)}`;
  return formatPath(path);
}

function allowedKeys(path: readonly PathSegment[]): string[] {
  if (path.length === 0) return ['rules', 'default', 'latencyMs', 'chunkDelayMs'];
  if (path.length === 2 && path[0] === 'rules') return RULE_KEYS;
  const last = path.at(-1);
  if (last === 'then') return ['toolCalls', 'then'];
  return ['name', 'args'];
}
