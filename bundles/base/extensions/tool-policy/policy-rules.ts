/**
 * Evaluating a tool call against the permission policy (seed 004 §6; Claude Code / Continue
 * permission models): every matching rule counts and the most restrictive action wins
 * (deny > ask > allow); with no match a read-only tool is allowed and anything else gets `default`.
 */
import { posix } from 'node:path';
import type { JsonObject, ToolPolicyAction } from '../../../../shared/types/index.ts';

export interface PolicyRule {
  tool: string;
  args?: Record<string, string>;
  action: ToolPolicyAction;
  reason?: string;
  /** Where the rule was declared (`swarm` / `agent`), for messages. */
  source?: string;
}

export interface Policy {
  default: ToolPolicyAction;
  rules: PolicyRule[];
}

export interface Verdict {
  action: ToolPolicyAction;
  /** The deciding rule, or undefined when the default / read-only exemption decided. */
  rule?: PolicyRule;
  ruleIndex?: number;
  /** Human-readable why, naming the rule. */
  explanation: string;
}

const RANK: Record<ToolPolicyAction, number> = { allow: 0, ask: 1, deny: 2 };
/** Arguments that name files: normalised and matched as globs, so `src/../x` cannot slip past a rule. */
const PATH_LIKE = /^(path|cwd|file|filename|filepath|dir|directory|root)$|path$/i;
/** Shell command arguments: judged per command of a compound line (`a && b; c | d`). */
const COMMAND_LIKE = /^(command|cmd)$/i;
const SHELL_SEPARATORS = /&&|\|\||[;|&\n]|\$\(|`/;

function wildcard(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*+/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 's');
}

function argumentText(value: JsonObject[string] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A compound shell line is only as safe as its worst part: an `allow` rule must match every
 * command in it (so `git status; rm -rf ~` is not allowed by `git *`), while `ask`/`deny` rules
 * match when any one command does (so `ls && rm -rf x` is caught by `rm *`).
 */
function commandMatches(pattern: string, value: string, action: ToolPolicyAction): boolean {
  const regex = wildcard(pattern);
  // A pattern that spells out separators itself is about the whole line.
  if (SHELL_SEPARATORS.test(pattern)) return regex.test(value.trim());
  const parts = value.split(SHELL_SEPARATORS).map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) return false;
  return action === 'allow' ? parts.every((p) => regex.test(p)) : parts.some((p) => regex.test(p));
}

function argumentMatches(key: string, pattern: string, value: string, action: ToolPolicyAction): boolean {
  if (COMMAND_LIKE.test(key)) return commandMatches(pattern, value, action);
  if (!PATH_LIKE.test(key)) return wildcard(pattern).test(value);
  const normalised = posix.normalize(value).replace(/^\.\//, '');
  return new Bun.Glob(pattern).match(normalised);
}

export function ruleMatches(rule: PolicyRule, toolName: string, args: JsonObject): boolean {
  if (!wildcard(rule.tool).test(toolName)) return false;
  for (const [key, pattern] of Object.entries(rule.args ?? {})) {
    const value = argumentText(args[key]);
    if (value === undefined || !argumentMatches(key, pattern, value, rule.action)) return false;
  }
  return true;
}

export function describeRule(rule: PolicyRule, index: number): string {
  const args = Object.entries(rule.args ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
  const where = rule.source ? `${rule.source} ` : '';
  return `${where}rule #${index + 1} (${rule.action} ${rule.tool}${args ? ` ${args}` : ''})`;
}

export function evaluate(policy: Policy, toolName: string, args: JsonObject, readOnly: boolean): Verdict {
  let best: { rule: PolicyRule; index: number } | undefined;
  policy.rules.forEach((rule, index) => {
    if (!ruleMatches(rule, toolName, args)) return;
    if (!best || RANK[rule.action] > RANK[best.rule.action]) best = { rule, index };
  });
  if (best) {
    const reason = best.rule.reason ? `: ${best.rule.reason}` : '';
    return { action: best.rule.action, rule: best.rule, ruleIndex: best.index, explanation: `${describeRule(best.rule, best.index)}${reason}` };
  }
  if (readOnly) return { action: 'allow', explanation: 'read-only tool' };
  return { action: policy.default, explanation: `the policy default (${policy.default})` };
}
