import { describe, expect, test } from 'bun:test';
import { type Policy, evaluate, ruleMatches } from '../../bundles/base/extensions/tool-policy/policy-rules.ts';

const policy = (rules: Policy['rules'], fallback: Policy['default'] = 'ask'): Policy => ({ default: fallback, rules });

describe('precedence: deny > ask > allow > default', () => {
  test('the most restrictive matching rule wins, whatever the order', () => {
    const rules: Policy['rules'] = [
      { tool: 'bash__exec', action: 'allow' },
      { tool: 'bash__*', args: { command: 'rm *' }, action: 'deny', reason: 'no deleting' },
      { tool: 'bash__exec', args: { command: '* -rf *' }, action: 'ask' },
    ];
    const verdict = evaluate(policy(rules), 'bash__exec', { command: 'rm -rf build' }, false);
    expect(verdict.action).toBe('deny');
    expect(verdict.ruleIndex).toBe(1);
    expect(verdict.explanation).toBe('rule #2 (deny bash__* command="rm *"): no deleting');
    expect(evaluate(policy(rules), 'bash__exec', { command: 'git clean -rf x' }, false).action).toBe('ask');
    expect(evaluate(policy(rules), 'bash__exec', { command: 'ls' }, false).action).toBe('allow');
  });

  test('with no matching rule, a read-only tool is allowed and anything else gets the default', () => {
    expect(evaluate(policy([], 'deny'), 'file-system__read', { path: 'a' }, true)).toMatchObject({ action: 'allow', explanation: 'read-only tool' });
    expect(evaluate(policy([], 'deny'), 'file-system__write', { path: 'a' }, false).action).toBe('deny');
    expect(evaluate(policy([], 'ask'), 'file-system__write', { path: 'a' }, false).action).toBe('ask');
  });

  test('an explicit rule beats the read-only exemption', () => {
    const rules: Policy['rules'] = [{ tool: 'http-fetch__get', args: { url: 'http://169.254.*' }, action: 'deny' }];
    expect(evaluate(policy(rules, 'allow'), 'http-fetch__get', { url: 'http://169.254.169.254/latest' }, true).action).toBe('deny');
  });

  test('rules carry where they came from in the explanation', () => {
    const verdict = evaluate(policy([{ tool: 'x__y', action: 'deny', source: 'swarm' }]), 'x__y', {}, false);
    expect(verdict.explanation).toBe('swarm rule #1 (deny x__y)');
  });
});

describe('matching', () => {
  test('tool patterns: * matches anything, the rest is literal', () => {
    expect(ruleMatches({ tool: 'file-system__*', action: 'ask' }, 'file-system__write', {})).toBe(true);
    expect(ruleMatches({ tool: 'file-system__*', action: 'ask' }, 'file-systemX__write', {})).toBe(false);
    expect(ruleMatches({ tool: 'a.b__c', action: 'ask' }, 'aXb__c', {})).toBe(false);
  });

  test('command-like arguments: * spans anything, including slashes and spaces', () => {
    const rule = { tool: 'bash__exec', args: { command: 'git *' }, action: 'allow' as const };
    expect(ruleMatches(rule, 'bash__exec', { command: 'git add src/a.ts' })).toBe(true);
    expect(ruleMatches(rule, 'bash__exec', { command: 'gitk' })).toBe(false);
  });

  test('compound shell lines: allow needs every command to match, deny and ask need one', () => {
    const allowGit = { tool: 'bash__exec', args: { command: 'git *' }, action: 'allow' as const };
    expect(ruleMatches(allowGit, 'bash__exec', { command: 'git status; rm -rf ~' })).toBe(false);
    expect(ruleMatches(allowGit, 'bash__exec', { command: 'git add . && git commit -m x' })).toBe(true);
    expect(ruleMatches(allowGit, 'bash__exec', { command: 'git log | less' })).toBe(false);
    expect(ruleMatches(allowGit, 'bash__exec', { command: 'git show $(rm -rf ~)' })).toBe(false);
    const denyRm = { tool: 'bash__exec', args: { command: 'rm *' }, action: 'deny' as const };
    expect(ruleMatches(denyRm, 'bash__exec', { command: 'ls && rm -rf build' })).toBe(true);
    expect(ruleMatches(denyRm, 'bash__exec', { command: 'echo rm is fine' })).toBe(false);
    const verdict = evaluate(policy([allowGit, denyRm]), 'bash__exec', { command: 'git status; rm -rf ~' }, false);
    expect(verdict.action).toBe('deny');
  });

  test('path-like arguments are normalised and matched as globs', () => {
    const rule = { tool: 'file-system__write', args: { path: 'src/**/*.ts' }, action: 'allow' as const };
    expect(ruleMatches(rule, 'file-system__write', { path: 'src/a/b.ts' })).toBe(true);
    expect(ruleMatches(rule, 'file-system__write', { path: './src/a.ts' })).toBe(true);
    expect(ruleMatches(rule, 'file-system__write', { path: 'src/../secrets/key.ts' })).toBe(false);
    expect(ruleMatches({ tool: '*', args: { path: '**/*.md' }, action: 'ask' }, 'x__y', { path: 'notes.md' })).toBe(true);
    expect(ruleMatches({ tool: '*', args: { path: '*.md' }, action: 'ask' }, 'x__y', { path: 'docs/notes.md' })).toBe(false);
  });

  test('a rule on an argument the call does not have does not match', () => {
    expect(ruleMatches({ tool: 'bash__exec', args: { cwd: '/tmp/**' }, action: 'deny' }, 'bash__exec', { command: 'ls' })).toBe(false);
  });

  test('non-string arguments are matched by their JSON text', () => {
    expect(ruleMatches({ tool: '*', args: { recursive: 'true' }, action: 'ask' }, 'fs__list', { recursive: true })).toBe(true);
  });
});
