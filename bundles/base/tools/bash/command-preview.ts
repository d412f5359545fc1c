/**
 * `evaluatePolicy` of bash (seed 004 §6.2): no verdict of its own — the permission policy judges
 * command lines — but a preview for the person asked to approve a call: every command the line
 * would run (also inside `sh -c`, substitutions and wrappers), the files it would write and what
 * cannot be known before it runs, read with the same parser as tool-policy.
 */
import type { JsonObject, ToolPolicyContext, ToolPolicyVerdict } from '../../../../shared/types/index.ts';

/** Commands listed at most; the rest is counted. */
const MAX_LISTED = 30;

export async function commandPreview(args: JsonObject, ctx: ToolPolicyContext): Promise<ToolPolicyVerdict | undefined> {
  // A script call is shown as the command line the policy judged: [shell, path, ...args].
  const line = ctx.exportName === 'script' ? (await import('../../extensions/tool-policy/policy-rules.ts')).scriptCommandLine(args) : args.command;
  if ((ctx.exportName !== 'exec' && ctx.exportName !== 'script') || typeof line !== 'string') return undefined;
  // Loaded on first use only: agents without bash never load the grammar.
  const [{ loadShellParser }, { ShellAnalyzer }] = await Promise.all([import('../../extensions/tool-policy/shell-parser.ts'), import('../../extensions/tool-policy/shell-analysis.ts')]);
  const analysis = new ShellAnalyzer(await loadShellParser()).analyze(line);
  const lines = [`$ ${line}`];
  if (ctx.exportName === 'script') lines.push(`(what the script ${String(args.path)} itself runs is not checked)`);
  const via = (path: string[]) => (path.length > 0 ? `   (inside ${path.join(' › ')})` : '');
  const listed = analysis.commands.slice(0, MAX_LISTED).map((command) => `  ${command.text}${via(command.via)}`);
  if (analysis.commands.length > MAX_LISTED) listed.push(`  … ${analysis.commands.length - MAX_LISTED} more`);
  lines.push(`runs ${analysis.commands.length} command(s):`, ...listed);
  if (analysis.writes.length > 0) lines.push('writes:', ...analysis.writes.map((write) => `  ${write.target} (${write.how})${via(write.via)}`));
  if (analysis.unresolved.length > 0) lines.push('only known when it runs:', ...analysis.unresolved.map((part) => `  ${part.fragment}: ${part.why}`));
  return { preview: lines.join('\n') };
}
