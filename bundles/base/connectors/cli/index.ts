/**
 * `cli` connector: the terminal conversation of `goondan run`. Each line is one turn on ONE stable
 * conversation key (config `instanceKey`, default `cli`) — not a new key per line (SPEC.md §9.15);
 * the reply is printed as it streams (issue 13), then the prompt again. Ctrl-D ends the session;
 * Ctrl-C is handled by the daemon, which drains everything.
 */
import { createInterface } from 'node:readline';
import type { Interface } from 'node:readline';
import { terminalLines } from '../../../../shared/terminal-text.ts';
import type { ConnectorApprovalPrompt, ConnectorContext } from '../../../../shared/types/index.ts';
import { approvalQuestion } from './approval-prompt.ts';

function askApproval(rl: Interface, prompt: ConnectorApprovalPrompt): Promise<{ approved: boolean; scope: 'once' | 'session' }> {
  return new Promise((resolve) => {
    rl.question(approvalQuestion(prompt), (answer) => {
      const a = answer.trim().toLowerCase();
      if (a === 'a' || a === 'always') resolve({ approved: true, scope: 'session' });
      else resolve({ approved: a === 'y' || a === 'yes', scope: 'once' });
    });
  });
}

export default async function cli(ctx: ConnectorContext): Promise<void> {
  const instanceKey = ctx.config.instanceKey || 'cli';
  const prompt = ctx.config.prompt || '> ';
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt, terminal: process.stdin.isTTY === true });
  // Ctrl-D may come while a turn runs (its text can be on screen before it ends): the reply is still
  // printed, but prompting a closed readline throws, which would crash the connector and restart it.
  let closed = false;
  rl.once('close', () => {
    closed = true;
    ctx.logger.info('terminal input closed');
  });
  const promptAgain = () => {
    if (!closed) rl.prompt();
  };
  ctx.signal.addEventListener('abort', () => rl.close(), { once: true });
  // The terminal is in raw mode while readline reads it, so Ctrl-C arrives here as a key, not a
  // signal: it ends the session like Ctrl-D, and the daemon then drains and exits.
  rl.on('SIGINT', () => {
    process.stdout.write('\n');
    rl.close();
  });
  // Tool approvals arrive while a turn runs (the loop below is awaiting its reply), one at a time.
  let approvals = Promise.resolve();
  ctx.onApproval((prompt) => {
    const asked = approvals.then(() => askApproval(rl, prompt));
    approvals = asked.then(() => undefined, () => undefined);
    return asked;
  });
  let lineNo = 0;
  rl.prompt();
  for await (const line of rl) {
    const text = line.trim();
    if (text === '') {
      promptAgain();
      continue;
    }
    lineNo += 1;
    // The reply is printed as the model produces it; a model that does not stream prints it whole below.
    // It is model text, which a fetched page may have steered: its control characters are shown, not obeyed.
    const reply = await ctx.request(
      { name: 'stdin_message', message: { type: 'text', text }, properties: { line: String(lineNo) }, instanceKey },
      { onText: (chunk) => process.stdout.write(terminalLines(chunk)) },
    );
    if (ctx.signal.aborted) break;
    if (reply.status !== 'ok') process.stdout.write(`[${reply.status}] ${terminalLines(reply.text)}\n`);
    else if (!reply.streamed) process.stdout.write(`${terminalLines(reply.text)}\n`);
    promptAgain();
  }
}
