/**
 * The text of a tool approval at the terminal. Everything in it comes from the agent (its
 * arguments, the summary rendered over them, the tool's preview of them), so every control
 * character is shown as an escape: a command must not be able to erase itself and draw another
 * prompt (shared/terminal-text.ts). Long parts are cut in the middle, so the end is always seen.
 */
import { clipLines, clipMiddle, terminalLine, terminalLines } from '../../../../shared/terminal-text.ts';
import type { ConnectorApprovalPrompt } from '../../../../shared/types/index.ts';

/** Lines of the tool's preview shown at the prompt: its first and its last lines when longer. */
export const PREVIEW_LINES = 40;
/** Characters of the arguments shown when the export declares no summary. */
const ARGS_CHARS = 300;

/**
 * What the person reads: "coder wants to: Run git status" and "🐚 Shell (bash__exec)" when the
 * export declares a summary (issue 17), else "coder wants to run bash__exec {…arguments}".
 */
function describeCall(prompt: ConnectorApprovalPrompt): string {
  const label = [prompt.icon, prompt.displayName].filter((part) => part !== undefined).join(' ');
  const tool = label === '' ? prompt.toolName : `${label} (${prompt.toolName})`;
  if (prompt.summary !== undefined) return `${terminalLine(prompt.agent)} wants to: ${terminalLine(prompt.summary)}\n  ${terminalLine(tool)}`;
  return terminalLine(`${prompt.agent} wants to run ${tool} ${clipMiddle(JSON.stringify(prompt.args), ARGS_CHARS)}`);
}

function previewBlock(preview: string | undefined): string {
  if (preview === undefined) return '';
  const lines = clipLines(terminalLines(preview).split('\n'), PREVIEW_LINES);
  return `${lines.map((line) => `  │ ${line}`).join('\n')}\n`;
}

export function approvalQuestion(prompt: ConnectorApprovalPrompt): string {
  return `\n${describeCall(prompt)}\n${previewBlock(prompt.preview)}  (${terminalLine(prompt.reason)})\n  Allow? [y]es / [n]o / [a]lways this session: `;
}
