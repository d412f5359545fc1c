/**
 * Issue 9's bypass table: every spelling, wrapper and container of `rm` gets past neither a
 * `deny: rm *` rule (default allow, the hardest case) nor an `allow: git *` list (default deny),
 * each with the exact verdict stated in policy-bypass-cases.ts; and ordinary lines stay allowed.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { type Policy, evaluate } from '../../bundles/base/extensions/tool-policy/policy-rules.ts';
import { ShellAnalyzer } from '../../bundles/base/extensions/tool-policy/shell-analysis.ts';
import { loadShellParser } from '../../bundles/base/extensions/tool-policy/shell-parser.ts';
import type { ToolPolicyAction } from '../../shared/types/index.ts';
import { type Case, GIT_BYPASSES, GIT_POLICY_STILL_ALLOWS, NAMED_RM_BYPASSES, RM_POLICY_STILL_ALLOWS, rmBypassCases } from './policy-bypass-cases.ts';

const DENY_RM: Policy = { default: 'allow', rules: [{ tool: 'bash__exec', args: { command: 'rm *' }, action: 'deny', source: 'swarm' }] };
const GIT_LIST: Policy = {
  default: 'deny',
  rules: ['git *', 'ls *', 'head *', 'wc *', 'grep *', 'cd *'].map((command) => ({ tool: 'bash__exec', args: { command }, action: 'allow' as const })),
};

let shell: ShellAnalyzer;
beforeAll(async () => {
  shell = new ShellAnalyzer(await loadShellParser());
});

/** Every case whose verdict differs from the expected one, with the verdict's explanation. */
function mismatches(policy: Policy, cases: readonly Case[]): string[] {
  return cases.flatMap(([line, expected]) => {
    const verdict = evaluate(policy, 'bash__exec', { command: line }, false, shell);
    return verdict.action === expected ? [] : [`${JSON.stringify(line)}: expected ${expected}, got ${verdict.action} (${verdict.explanation})`];
  });
}

/** Mismatches where a line that must not run was allowed. */
const bypasses = (results: string[]) => results.filter((r) => r.includes(', got allow (')).length;
const allowed = (lines: readonly string[]): Case[] => lines.map((line): Case => [line, 'allow' satisfies ToolPolicyAction]);

describe('deny: rm * (default allow)', () => {
  test('the bypasses named in the issue are denied, or ask when the program is only known at run time', () => {
    expect(mismatches(DENY_RM, NAMED_RM_BYPASSES)).toEqual([]);
  });

  test('generated variants (spellings × wrappers, containers, whitespace, separators, run-time forms, delete forms): 0 bypasses', () => {
    const cases = [...NAMED_RM_BYPASSES, ...rmBypassCases()];
    const results = mismatches(DENY_RM, cases);
    console.log(`policy bypass table, deny: rm *: ${cases.length} cases, ${bypasses(results)} bypasses, ${results.length} verdicts off the table`);
    expect(cases.length).toBeGreaterThan(NAMED_RM_BYPASSES.length + 50);
    expect(results).toEqual([]);
  });

  test('ordinary lines stay allowed', () => {
    expect(mismatches(DENY_RM, allowed(RM_POLICY_STILL_ALLOWS))).toEqual([]);
  });
});

describe('allow: git * (default deny)', () => {
  test('git variants that run other code or write outside the workspace are not allowed: 0 bypasses', () => {
    const results = mismatches(GIT_LIST, GIT_BYPASSES);
    console.log(`policy bypass table, allow: git *: ${GIT_BYPASSES.length} cases, ${bypasses(results)} bypasses, ${results.length} verdicts off the table`);
    expect(results).toEqual([]);
  });

  test('ordinary git lines stay allowed, piped and chained with allowed commands', () => {
    expect(mismatches(GIT_LIST, allowed(GIT_POLICY_STILL_ALLOWS))).toEqual([]);
  });
});
