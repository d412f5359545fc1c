/**
 * Evaluating a tool call against the permission policy (seed 004 §6; Claude Code / Continue
 * permission models): every matching rule counts and the most restrictive action wins
 * (deny > ask > allow); with no match a read-only tool is allowed and anything else gets `default`.
 * Shell command arguments are judged per command the line would run (shell-analysis.ts): deny/ask
 * match when any command does, allow needs every command covered by an allow rule, and a line
 * with parts that cannot be judged, opaque code or writes outside the workspace is never allowed.
 * A `bash__script` call runs `SHELL PATH ARGS…`: command rules judge it as that command line.
 */
import { posix } from 'node:path';
import type { JsonObject, ToolPolicyAction } from '../../../../shared/types/index.ts';
import { SHELL_OPERATORS, allowingMatch, lineMatch, restrictingMatch, wildcard } from './command-patterns.ts';
import { dangerousVariable } from './dangerous-environment.ts';
import type { ShellAnalysis, ShellAnalyzer, ShellCommand } from './shell-analysis.ts';
import { lineFindings, uncoveredBy } from './shell-line-findings.ts';

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
  /** The deciding rule, or undefined when the default, the read-only exemption or an unjudgeable line decided. */
  rule?: PolicyRule;
  ruleIndex?: number;
  /** Human-readable why, naming the rule and the sub-command it matched. */
  explanation: string;
}

interface RuleHit {
  rule: PolicyRule;
  index: number;
  explanation: string;
}

const RANK: Record<ToolPolicyAction, number> = { allow: 0, ask: 1, deny: 2 };
/** Arguments that name files: normalised and matched as globs, so `src/../x` cannot slip past a rule. */
const PATH_LIKE = /^(path|cwd|file|filename|filepath|dir|directory|root)$|path$/i;
/** Shell command arguments: judged per command the line would run. */
export const COMMAND_LIKE = /^(command|cmd)$/i;
/** Shell writes are judged by the rules for this tool (`{tool: file-system__write, args: {path: "~/**"}, action: deny}`). */
const WRITE_TOOL = 'file-system__write';
/** Runs `[shell ?? /bin/bash, path, ...args]` (bundles/base/tools/bash): judged by command rules as that line. */
const SCRIPT_TOOL = 'bash__script';
const DEFAULT_SCRIPT_SHELL = '/bin/bash';

/** Single-quotes a word for sh: the line then has exactly these words. */
const shellWord = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The command line a `bash__script` call runs, quoted word by word: the interpreter, the script
 * (`./-x` for a path the interpreter would read as an option: the tool passes it absolute), its
 * arguments. `{shell: "/bin/rm", path: "x"}` is `rm x`; `{path: "build.sh"}` is `/bin/bash build.sh`.
 */
export function scriptCommandLine(args: JsonObject): string | undefined {
  if (typeof args.path !== 'string') return undefined;
  const shell = typeof args.shell === 'string' ? args.shell : DEFAULT_SCRIPT_SHELL;
  const path = args.path.startsWith('-') ? `./${args.path}` : args.path;
  const rest = Array.isArray(args.args) ? args.args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))) : [];
  return [shell, path, ...rest].map(shellWord).join(' ');
}

/** The arguments rules judge: a script call's command-like arguments are the line it runs, whatever the call holds. */
function judgedArgs(toolName: string, args: JsonObject): JsonObject {
  if (toolName !== SCRIPT_TOOL) return args;
  const line = scriptCommandLine(args);
  return line === undefined ? args : { ...args, command: line, cmd: line };
}

function argumentText(value: JsonObject[string] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function plainArgumentMatches(key: string, pattern: string, value: string): boolean {
  if (!PATH_LIKE.test(key)) return wildcard(pattern).test(value);
  const normalised = posix.normalize(value).replace(/^\.\//, '');
  return new Bun.Glob(pattern).match(normalised);
}

export function describeRule(rule: PolicyRule, index: number): string {
  const args = Object.entries(rule.args ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
  const where = rule.source ? `${rule.source} ` : '';
  return `${where}rule #${index + 1} (${rule.action} ${rule.tool}${args ? ` ${args}` : ''})`;
}

const withReason = (rule: PolicyRule, index: number) => `${describeRule(rule, index)}${rule.reason ? `: ${rule.reason}` : ''}`;
export const quoted = (command: Pick<ShellCommand, 'text' | 'via'>) => `'${command.text}'${command.via.length > 0 ? ` (inside ${command.via.join(' › ')})` : ''}`;

/** The command lines of a call that some rule for this tool judges by command. */
export function commandKeys(policy: Policy, toolName: string, callArgs: JsonObject): string[] {
  const args = judgedArgs(toolName, callArgs);
  const keys = new Set<string>();
  for (const rule of policy.rules) {
    if (!wildcard(rule.tool).test(toolName)) continue;
    for (const key of Object.keys(rule.args ?? {})) if (COMMAND_LIKE.test(key) && typeof args[key] === 'string') keys.add(key);
  }
  return [...keys];
}

/** Whether judging this call needs the shell parser. */
export const needsShellParser = (policy: Policy, toolName: string, args: JsonObject): boolean => commandKeys(policy, toolName, args).length > 0;

const PARSER_MISSING: ShellAnalysis = { commands: [], writes: [], unresolved: [{ fragment: '', why: 'the shell parser is not available', via: [] }], directories: [] };

function analyseLines(policy: Policy, toolName: string, args: JsonObject, shell: ShellAnalyzer | undefined): Map<string, ShellAnalysis> {
  return new Map(commandKeys(policy, toolName, args).map((key) => [key, shell ? shell.analyze(String(args[key])) : PARSER_MISSING]));
}

interface RuleMatch {
  /** The sub-command a deny/ask rule matched, for the message. */
  subject?: string;
}

function matchRule(rule: PolicyRule, toolName: string, args: JsonObject, lines: Map<string, ShellAnalysis>): RuleMatch | undefined {
  if (!wildcard(rule.tool).test(toolName)) return undefined;
  let subject: string | undefined;
  for (const [key, pattern] of Object.entries(rule.args ?? {})) {
    const analysis = lines.get(key);
    if (!analysis) {
      const value = argumentText(args[key]);
      if (value === undefined || !plainArgumentMatches(key, pattern, value)) return undefined;
      continue;
    }
    if (rule.action === 'allow') {
      if (analysis.commands.length === 0 || !analysis.commands.every((c) => allowingMatch(pattern, c))) return undefined;
      continue;
    }
    const hit = analysis.commands.find((c) => restrictingMatch(pattern, c));
    if (hit) subject ??= `${quoted(hit)} matches`;
    else if (SHELL_OPERATORS.test(pattern) && lineMatch(pattern, String(args[key]))) subject ??= 'the command line matches';
    else return undefined;
  }
  return subject ? { subject } : {};
}

/** Does this one rule match the call? (An allow rule: does it alone cover every command of the line?) */
export function ruleMatches(rule: PolicyRule, toolName: string, callArgs: JsonObject, shell?: ShellAnalyzer): boolean {
  const args = judgedArgs(toolName, callArgs);
  const probe: Policy = { default: 'ask', rules: [rule] };
  return matchRule(rule, toolName, args, analyseLines(probe, toolName, args, shell)) !== undefined;
}

/** The strongest rule that matches (no default, no read-only exemption). */
function strongestRule(policy: Policy, toolName: string, args: JsonObject, lines: Map<string, ShellAnalysis>): RuleHit | undefined {
  let best: RuleHit | undefined;
  policy.rules.forEach((rule, index) => {
    const match = matchRule(rule, toolName, args, lines);
    if (!match || (best && RANK[rule.action] <= RANK[best.rule.action])) return;
    best = { rule, index, explanation: match.subject ? `${match.subject} ${withReason(rule, index)}` : withReason(rule, index) };
  });
  return best;
}

/** The first allow rule whose pattern for `key` covers this command (and whose other arguments match the call), or -1. */
function coveringRuleIndex(policy: Policy, toolName: string, args: JsonObject, key: string, command: ShellCommand): number {
  return policy.rules.findIndex((rule) => {
    const pattern = rule.args?.[key];
    if (rule.action !== 'allow' || pattern === undefined || !allowingMatch(pattern, command)) return false;
    const others: PolicyRule = { ...rule, args: Object.fromEntries(Object.entries(rule.args ?? {}).filter(([k]) => k !== key)) };
    return matchRule(others, toolName, args, new Map()) !== undefined;
  });
}

/** Allow rules together covering every command of every judged line (`ls *` + `git *` allow `ls && git diff`). */
function coveringAllow(policy: Policy, toolName: string, args: JsonObject, lines: Map<string, ShellAnalysis>): RuleHit | undefined {
  const users: RuleHit[] = [];
  for (const [key, analysis] of lines) {
    if (analysis.commands.length === 0) return undefined;
    for (const command of analysis.commands) {
      const index = coveringRuleIndex(policy, toolName, args, key, command);
      const rule = policy.rules[index];
      if (!rule) return undefined;
      if (!users.some((u) => u.index === index)) users.push({ rule, index, explanation: describeRule(rule, index) });
    }
  }
  const [first] = users;
  return first ? { ...first, explanation: `every command is allowed: ${users.map((u) => u.explanation).join(' + ')}` } : undefined;
}

/** What the default decides, and for a command line the first command no allow rule covers (and what rule would). */
function defaultVerdict(policy: Policy, toolName: string, args: JsonObject, lines: Map<string, ShellAnalysis>): Verdict {
  const decides = `the policy default (${policy.default})`;
  if (policy.default === 'allow') return { action: 'allow', explanation: decides };
  for (const [key, analysis] of lines) {
    const command = analysis.commands.find((c) => coveringRuleIndex(policy, toolName, args, key, c) < 0);
    if (command) return { action: policy.default, explanation: `${decides} applies: ${uncoveredBy(command)}` };
  }
  return { action: policy.default, explanation: decides };
}

/** A call's own `env` argument can change what its command runs (`{PATH: "."}`). */
function environmentFinding(args: JsonObject): string | undefined {
  const env = args.env;
  if (!env || typeof env !== 'object' || Array.isArray(env)) return undefined;
  const why = Object.keys(env).map(dangerousVariable).find((w) => w !== undefined);
  return why ? `the call's env argument is unsafe: ${why}` : undefined;
}

export function evaluate(policy: Policy, toolName: string, callArgs: JsonObject, readOnly: boolean, shell?: ShellAnalyzer): Verdict {
  const args = judgedArgs(toolName, callArgs);
  const lines = analyseLines(policy, toolName, args, shell);
  const verdictOf = (hit: RuleHit): Verdict => ({ action: hit.rule.action, rule: hit.rule, ruleIndex: hit.index, explanation: hit.explanation });
  const judgeWrite = (path: string) => strongestRule(policy, WRITE_TOOL, { path }, new Map());
  const cwd = typeof args.cwd === 'string' ? args.cwd : '.';
  const findings = [...lines.values()].map((analysis) => lineFindings(analysis, cwd, judgeWrite));
  const strongest = [strongestRule(policy, toolName, args, lines), ...findings.flatMap((f) => f.writeHits)].reduce<RuleHit | undefined>(
    (best, hit) => (hit && (!best || RANK[hit.rule.action] > RANK[best.rule.action]) ? hit : best),
    undefined,
  );
  if (strongest && strongest.rule.action !== 'allow') return verdictOf(strongest);
  const allowed = strongest ?? (lines.size > 0 ? coveringAllow(policy, toolName, args, lines) : undefined);
  // Command allow patterns already refuse opaque commands they do not name and remotes they do not spell; anything else must not let them through.
  const allowedByCommand = allowed !== undefined && Object.keys(allowed.rule.args ?? {}).some((key) => lines.has(key));
  const blocker =
    findings.map((f) => f.blocker).find((b) => b !== undefined) ??
    (lines.size > 0 ? environmentFinding(args) : undefined) ??
    (allowedByCommand ? undefined : findings.map((f) => f.commandAllowOnly).find((o) => o !== undefined));
  const fallback: Verdict = allowed
    ? verdictOf(allowed)
    : readOnly
      ? { action: 'allow', explanation: 'read-only tool' }
      : defaultVerdict(policy, toolName, args, lines);
  // What cannot be judged is never allowed: it asks (a deny stays a deny).
  if (blocker && fallback.action !== 'deny') return { action: 'ask', explanation: blocker };
  return fallback;
}
