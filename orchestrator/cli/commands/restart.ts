/**
 * `goondan restart [--agent A] [--instance KEY] [--fresh] [--yes]`: restarts agent processes of the
 * running daemon — each drains its current turn, then its replacement starts with the current
 * bundle (also one that could not start before). `--fresh` also deletes the conversation state of
 * the restarted instances and asks first (`--yes` skips the question).
 */
import { createInterface } from 'node:readline/promises';
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { isJsonObject } from '../../../shared/types/json.ts';
import { type CliCommand, type CliIo, UsageError, nonEmpty, parseOptions } from '../command.ts';
import { connectToDaemon } from '../daemon-client.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { formatDaemonFailure } from '../daemon-failure.ts';

const usage = `Usage: goondan restart [--agent NAME] [--instance KEY] [--fresh] [--yes] [--state-root DIR]

Restart agent processes of the running daemon: a running turn finishes first (history is kept),
then a fresh process starts with the current bundle — also for an agent that could not start.

Options:
      --agent NAME      only this agent's processes (default: every agent)
      --instance KEY    only this instance (conversation) key (default: every instance)
      --fresh           also delete the conversation state of what is restarted (asks first)
      --yes             do not ask (needed for --fresh without a terminal)
      --state-root DIR  where to find the daemon (default $GOONDAN_STATE_ROOT, else ~/.goondan)

The daemon answers once the running turns finished; a daemon that meanwhile does not answer
GET /healthz within GOONDAN_CLI_ANSWER_TIMEOUT_MS (default 30000) is given up on: exit 1.`;

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

async function restart(argv: string[], io: CliIo): Promise<ExitCode> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      agent: { type: 'string' },
      instance: { type: 'string' },
      fresh: { type: 'boolean' },
      yes: { type: 'boolean' },
      'state-root': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  // With --fresh an empty value taken for "every" would delete every conversation.
  nonEmpty(values.agent, '--agent', 'every agent');
  nonEmpty(values.instance, '--instance', 'every instance');
  const fresh = values.fresh === true;
  if (fresh && values.yes !== true) {
    if (process.stdin.isTTY !== true) throw new UsageError('--fresh deletes conversation state and asks first; without a terminal pass --yes');
    const what = `${values.agent ? `agent '${values.agent}'` : 'every agent'}${values.instance ? ` in instance '${values.instance}'` : ''}`;
    if (!(await confirm(`Delete the conversation state of ${what}?`))) {
      io.stderr('goondan restart: nothing done');
      return EXIT.ok;
    }
  }
  const client = connectToDaemon(resolveStateRoot(values['state-root']));
  const response = await client.request('POST', '/v1/restart', {
    fresh,
    ...(values.agent ? { agent: values.agent } : {}),
    ...(values.instance ? { instanceKey: values.instance } : {}),
  }, { answers: 'after-work', ifHung: "whether it restarted anything is unknown: see 'goondan ps' once it answers" });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    io.stderr(formatDaemonFailure('goondan restart', client, response.status, body));
    return response.status === 400 || response.status === 404 ? EXIT.usage : EXIT.runtimeError;
  }
  if (!isJsonObject(body)) {
    io.stderr(`goondan restart: unexpected response ${response.status} from ${client.url}`);
    return EXIT.runtimeError;
  }
  if (fresh) {
    const deleted = Array.isArray(body.deleted) ? body.deleted.length : 0;
    const discarded = Array.isArray(body.discarded) ? body.discarded.length : 0;
    const givenUp = discarded > 0 ? `; ${discarded} queued event(s) given up` : '';
    io.stdout(`stopped ${String(body.stopped ?? 0)} process(es) and deleted ${deleted} state director${deleted === 1 ? 'y' : 'ies'}; they start afresh (queued events first)${givenUp}`);
  } else {
    io.stdout(`restarted ${String(body.restarted ?? 0)} process(es)`);
  }
  return EXIT.ok;
}

export const restartCommand: CliCommand = { name: 'restart', summary: 'restart agent processes of the running daemon (--fresh: and clear their state)', usage, run: restart };
