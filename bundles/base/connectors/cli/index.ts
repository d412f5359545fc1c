/**
 * `cli` connector: the terminal conversation of `goondan run`. Each line is one turn on ONE stable
 * conversation key (config `instanceKey`, default `cli`) — not a new key per line (SPEC.md §9.15);
 * the reply is printed, then the prompt again. Ctrl-D ends the session; Ctrl-C is handled by the
 * daemon, which drains everything.
 */
import { createInterface } from 'node:readline';
import type { ConnectorContext } from '../../../../shared/types/index.ts';

export default async function cli(ctx: ConnectorContext): Promise<void> {
  const instanceKey = ctx.config.instanceKey || 'cli';
  const prompt = ctx.config.prompt || '> ';
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt, terminal: process.stdin.isTTY === true });
  ctx.signal.addEventListener('abort', () => rl.close(), { once: true });
  let lineNo = 0;
  rl.prompt();
  for await (const line of rl) {
    const text = line.trim();
    if (text === '') {
      rl.prompt();
      continue;
    }
    lineNo += 1;
    const reply = await ctx.request({
      name: 'stdin_message',
      message: { type: 'text', text },
      properties: { line: String(lineNo) },
      instanceKey,
    });
    if (ctx.signal.aborted) break;
    process.stdout.write(reply.status === 'ok' ? `${reply.text}\n` : `[${reply.status}] ${reply.text}\n`);
    rl.prompt();
  }
}
