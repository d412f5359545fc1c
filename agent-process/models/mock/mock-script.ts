/**
 * The script of the `mock` provider (`Model.spec.options`, documented in docs/mock-model.md):
 * rules matched against the latest user message, each a text reply or a chain of tool-call steps
 * ending in a reply. Checked with ajv and compiled (regexes) once, when the engine starts.
 */
import { EngineError } from '../../engine/engine-error.ts';
import { describeMockScriptProblems, isMockScript, MOCK_SCRIPT_HINT, type MockRuleSpec, type MockScriptSpec, type MockStepSpec, type MockToolCallSpec, mockScriptProblems } from '../../../shared/config/mock-script-format.ts';

export type { MockRuleSpec, MockScriptSpec, MockStepSpec, MockToolCallSpec };

/** What the model does at one depth (number of tool-call steps since the latest user message). */
export type MockAction = { kind: 'reply'; template: string } | { kind: 'toolCalls'; calls: MockToolCallSpec[] } | { kind: 'summary' };

export interface CompiledRule {
  /** Match groups (index 0 = whole match) or null when the rule does not apply to the text. */
  test(text: string): string[] | null;
  /** Actions by depth; the last one is always a reply or a summary, so a session always ends. */
  actions: MockAction[];
}

export interface MockScript {
  latencyMs: number;
  /** Streaming: the pause between word-sized chunks (after `latencyMs` before the first). */
  chunkDelayMs: number;
  rules: CompiledRule[];
  fallback: MockAction[];
}

/** Compiled once per options object: a primed spare's rehearsal and the instance it becomes share their plan. */
const compiledScripts = new WeakMap<object, MockScript>();

export function compileMockScript(modelName: string, options: unknown): MockScript {
  const cacheable = typeof options === 'object' && options !== null;
  const known = cacheable ? compiledScripts.get(options) : undefined;
  if (known) return known;
  const script = compileFresh(modelName, options);
  if (cacheable) compiledScripts.set(options, script);
  return script;
}

function compileFresh(modelName: string, options: unknown): MockScript {
  const problems = mockScriptProblems(options);
  if (problems.length > 0 || !isMockScript(options)) {
    throw new EngineError({
      code: 'E_MODEL_CONFIG',
      message: `Model '${modelName}' (provider mock): invalid spec.options: ${describeMockScriptProblems(problems)}`,
      suggestion: `${MOCK_SCRIPT_HINT} \`goondan validate\` shows each problem at its file:line.`,
    });
  }
  const rules = (options.rules ?? []).map((rule, index) => compileRule(modelName, rule, index));
  const fallback = options.default === undefined || options.default === 'echo' ? '{{input}}' : options.default;
  return { latencyMs: options.latencyMs ?? 0, chunkDelayMs: options.chunkDelayMs ?? 0, rules, fallback: [{ kind: 'reply', template: fallback }] };
}

function compileRule(modelName: string, rule: MockRuleSpec, index: number): CompiledRule {
  let test: CompiledRule['test'];
  if (rule.regex !== undefined) {
    let regex: RegExp;
    try {
      // `g`/`y` would make exec() stateful across calls; the mock must be deterministic.
      regex = new RegExp(rule.regex, (rule.flags ?? '').replace(/[gy]/g, ''));
    } catch (error) {
      throw new EngineError({
        code: 'E_MODEL_CONFIG',
        message: `Model '${modelName}' (provider mock): rules[${index}].regex is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    test = (text) => {
      const found = regex.exec(text);
      return found ? Array.from(found, (group) => group ?? '') : null;
    };
  } else {
    const needle = (rule.match ?? '').toLowerCase();
    test = (text) => {
      const at = text.toLowerCase().indexOf(needle);
      return at < 0 ? null : [text.slice(at, at + needle.length)];
    };
  }
  return { test, actions: actionsOf(rule) };
}

function actionsOf(rule: MockRuleSpec): MockAction[] {
  if (rule.reply !== undefined) return [{ kind: 'reply', template: rule.reply }];
  const actions: MockAction[] = [];
  let step: MockStepSpec | undefined = rule.toolCalls ? { toolCalls: rule.toolCalls, ...(rule.then !== undefined ? { then: rule.then } : {}) } : undefined;
  while (step) {
    actions.push({ kind: 'toolCalls', calls: step.toolCalls });
    const then: string | MockStepSpec | undefined = step.then;
    if (typeof then === 'object') {
      step = then;
    } else {
      actions.push(then === undefined ? { kind: 'summary' } : { kind: 'reply', template: then });
      step = undefined;
    }
  }
  return actions;
}
