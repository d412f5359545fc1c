/**
 * What in an analysed command line stops it from being allowed, and how its writes fare under the
 * policy's path rules. A write is judged as a `file-system__write` call for its path (so
 * `{tool: file-system__write, args: {path: "~/**"}, action: deny}` denies `git log > ~/.bashrc`);
 * a write no such rule allows that lands outside the workspace (absolute, `~`, `..`, or after a `cd`
 * elsewhere) blocks an allow, like a part that cannot be judged does; opaque code and a copy to or
 * from another machine block any allow but a command rule's.
 */
import { posix } from 'node:path';
import type { ToolPolicyAction } from '../../../../shared/types/index.ts';
import { remoteCopyPattern } from './remote-copy-pattern.ts';
import type { ShellAnalysis, ShellCommand, ShellWrite } from './shell-analysis.ts';

export interface RuleHit {
  rule: { action: ToolPolicyAction };
  index: number;
  explanation: string;
}

export interface LineFindings<H extends RuleHit> {
  /** deny/ask rules matched by the line's writes. */
  writeHits: H[];
  /** Why the line cannot be allowed by any allow rule or default (a part that cannot be judged, a write outside the workspace). */
  blocker?: string;
  /** Why only a command allow rule could allow it, not a default or a tool-wide allow (opaque code, a copy to or from another machine). */
  commandAllowOnly?: string;
}

const outsideRoot = (path: string) => path.startsWith('/') || path.startsWith('~');
const escapes = (path: string) => outsideRoot(path) || path === '..' || path.startsWith('../');
const via = (chain: string[]) => (chain.length > 0 ? ` inside ${chain.join(' › ')}` : '');

/** Where a write may land: relative targets against the call's cwd and every directory the line may `cd` into. */
function landingPaths(target: string, cwd: string, directories: Array<string | undefined>): Array<string | undefined> {
  if (outsideRoot(target)) return [posix.normalize(target)];
  const bases = [cwd, ...directories.map((d) => (d === undefined ? undefined : outsideRoot(d) ? d : posix.join(cwd, d)))];
  return bases.map((base) => (base === undefined ? undefined : posix.normalize(posix.join(base, target))));
}

function judgeWrite<H extends RuleHit>(write: ShellWrite, path: string | undefined, judge: (path: string) => H | undefined, findings: LineFindings<H>): void {
  const what = `writing ${write.target} (${write.how}${via(write.via)})`;
  if (path === undefined) {
    findings.blocker ??= `${what} lands in a directory only known when the line runs`;
    return;
  }
  const hit = judge(path);
  if (hit && hit.rule.action !== 'allow') findings.writeHits.push({ ...hit, explanation: `${what} matches ${hit.explanation}` });
  else if (!hit && escapes(path)) findings.blocker ??= `${what} lands outside the workspace; only a file-system__write allow rule for ${path} lets that run`;
}

export function lineFindings<H extends RuleHit>(analysis: ShellAnalysis, cwd: string, judge: (path: string) => H | undefined): LineFindings<H> {
  const findings: LineFindings<H> = { writeHits: [] };
  const unresolved = analysis.unresolved[0];
  if (unresolved) findings.blocker = `${unresolved.fragment ? `'${unresolved.fragment}'` : 'the command line'}${via(unresolved.via)} cannot be judged before it runs: ${unresolved.why}`;
  for (const write of analysis.writes) {
    for (const path of landingPaths(write.target, cwd, analysis.directories)) judgeWrite(write, path, judge, findings);
  }
  // The outermost such command: `sftp h` runs `ssh … h sftp`, and the approver should read about sftp.
  const restricted = analysis.commands.filter((c) => c.opaque || c.remotes).sort((a, b) => a.via.length - b.via.length)[0];
  if (restricted) findings.commandAllowOnly = allowOnlyBy(restricted);
  return findings;
}

/** Why only a command allow rule can allow it, and which: one naming the program (opaque), spelling each remote (a copy to another machine), or both (sftp). */
function allowOnlyBy(command: ShellCommand): string {
  const program = command.written.split(' ')[0] ?? '';
  const remotes = command.remotes ?? [];
  const copies = `copies files to or from another machine (${remotes.join(', ')})`;
  const spells = `that spells the remote${remotes.length > 1 ? 's' : ''} (${remoteCopyPattern(command)})`;
  const where = `'${command.written}'${via(command.via)}`;
  if (!command.opaque) return `${where} ${copies}; only an allow rule ${spells} can let it run`;
  if (remotes.length === 0) return `${where}: ${command.opaque}; only an allow rule naming ${program} can let it run`;
  return `${where}: ${command.opaque}, and it ${copies}; only an allow rule naming ${program} ${spells} can let it run`;
}

/**
 * Why no allow rule covers a command, for a verdict the policy default decides, with a pattern that
 * would: an opaque program needs its name as the pattern's first word, a copy to another machine each
 * remote spelled (the command as written is such a pattern).
 */
export function uncoveredBy(command: ShellCommand): string {
  const program = command.written.split(' ')[0] ?? '';
  const remotes = command.remotes ?? [];
  const where = `'${command.written}'${via(command.via)}${command.opaque ? ` (${command.opaque})` : ''}`;
  const copies = remotes.length > 0 ? `, which copies files to or from another machine (${remotes.join(', ')})` : '';
  const spells = `spells the remote${remotes.length > 1 ? 's' : ''}`;
  if (remotes.length > 0) return `no allow rule covers ${where}${copies}; an allow rule whose pattern ${command.opaque ? `names ${program} and ${spells}` : spells} would, such as "${command.written}"`;
  if (command.opaque) return `no allow rule covers ${where}; an allow rule whose pattern names ${program} would, such as "${program} *"`;
  return `no allow rule covers ${where}`;
}
