/** `goondan send TEXT`: one event into a running daemon; prints the reply (or the event id with --no-wait). */
import { sseFrames } from '../../../shared/http/sse-frames.ts';
import { StreamedReply } from '../../../shared/streaming/streamed-reply.ts';
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { isJsonObject, type JsonObject } from '../../../shared/types/json.ts';
import { type CliCommand, type CliIo, UsageError, nonEmpty, parseOptions } from '../command.ts';
import { callDeadline, type CallDeadline } from '../call-deadline.ts';
import { connectToDaemon, type DaemonClient, DaemonUnreachableError, describeOrigin, quickAnswerMs } from '../daemon-client.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { formatDaemonFailure } from '../daemon-failure.ts';
import { formatFailure, printedError } from '../format-failure.ts';

const usage = `Usage: goondan send TEXT [options]

Send TEXT to an agent of the running daemon and print its reply.

Options:
      --agent NAME      target agent (default: the swarm's entry agent)
      --instance KEY    conversation / instance key (default: default)
      --no-wait         do not wait for the reply; print the event id
      --timeout MS      give up after MS milliseconds (default: the daemon waits 60000 for the
                        reply); bounds the whole call, also against a daemon that does not answer
      --json            print the whole API response as JSON
      --state-root DIR  where to find the daemon (default $GOONDAN_STATE_ROOT, else ~/.goondan)

A daemon that does not begin to answer within GOONDAN_CLI_ANSWER_TIMEOUT_MS (default 30000; while
the reply is waited for unstreamed, its GET /healthz) is given up on: exit 1.`;

async function send(argv: string[], io: CliIo): Promise<ExitCode> {
  const parsed = parseOptions({
      args: argv,
      allowPositionals: true,
      options: {
        agent: { type: 'string' },
        instance: { type: 'string' },
        'no-wait': { type: 'boolean' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
        'state-root': { type: 'string' },
      },
    });
  const { values, positionals } = parsed;
  const text = positionals.join(' ').trim();
  if (text === '') throw new UsageError('TEXT is required');
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) throw new UsageError(`--timeout must be a positive integer, got '${values.timeout}'`);
  const agent = nonEmpty(values.agent, '--agent', "the swarm's entry agent");
  const instanceKey = nonEmpty(values.instance, '--instance', "the instance 'default'");
  const client = connectToDaemon(resolveStateRoot(values['state-root']));
  const body = {
    input: text,
    wait: values['no-wait'] !== true,
    ...(agent !== undefined ? { agent } : {}),
    ...(instanceKey !== undefined ? { instanceKey } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  };
  // Tokens are printed as they arrive when the reply is waited for and printed as text.
  const streaming = body.wait && values.json !== true && io.write !== undefined;
  const deadline = timeoutMs === undefined ? undefined : callDeadline(timeoutMs);
  const progress: Progress = { accepted: false };
  try {
    return await exchange(client, streaming ? { ...body, stream: true } : body, { streaming, json: values.json === true, agent: values.agent }, io, progress, deadline);
  } catch (error) {
    if (deadline?.expired() && timeoutMs !== undefined) throw outOfTime(client, timeoutMs, deadline, progress);
    throw error;
  } finally {
    deadline?.stop();
  }
}

/** What the call got before it ended: whether the daemon took the event, and the trace it streamed. */
interface Progress {
  accepted: boolean;
  traceId?: string;
}

async function exchange(
  client: DaemonClient,
  body: JsonObject,
  mode: { streaming: boolean; json: boolean; agent: string | undefined },
  io: CliIo,
  progress: Progress,
  deadline: CallDeadline | undefined,
): Promise<ExitCode> {
  // Unstreamed, the daemon answers with the reply: until then it must keep answering GET /healthz.
  const answers = mode.streaming || body.wait === false ? 'at-once' : 'after-work';
  // An answer due at once is due within --timeout too, when that is sooner.
  const sooner = answers === 'at-once' && deadline !== undefined && deadline.timeoutMs < quickAnswerMs();
  const response = await client.request('POST', '/v1/events', body, {
    answers,
    ...(sooner ? { answerWithinMs: deadline.timeoutMs, answerLimit: '--timeout' } : {}),
    ifHung: 'no event id came back, so the event may not have been accepted',
    ...(deadline ? { signal: deadline.signal } : {}),
  });
  progress.accepted = response.ok;
  const printed = new StreamedReply();
  const result: unknown =
    mode.streaming && response.ok
      ? await readStreamedReply(response, mode.agent, io, printed, client.url, progress, deadline?.signal)
      : await response.json().catch((error: unknown) => {
          if (deadline?.expired()) throw error;
          return undefined;
        });
  if (mode.json && isJsonObject(result)) io.stdout(JSON.stringify(result, null, 2));
  if (!response.ok) {
    const known = isJsonObject(result) ? result : {};
    io.stderr(formatTimedOut(known) ?? formatDaemonFailure('goondan send', client, response.status, result, replyContext(known)));
    return response.status === 400 || response.status === 404 ? EXIT.usage : EXIT.runtimeError;
  }
  if (!isJsonObject(result)) {
    io.stderr(`goondan send: unexpected response ${response.status} from ${client.url}`);
    return EXIT.runtimeError;
  }
  if (response.status === 202) {
    if (!mode.json) io.stdout(String(result.eventId));
    return EXIT.ok;
  }
  if (result.status !== 'ok') {
    io.write?.(printed.lineBreak()); // streamed text ends its line before the failure is told
    io.stderr(formatTimedOut(result) ?? formatFailure('goondan send', result.error, String(result.status).toUpperCase(), replyContext(result)));
    return EXIT.runtimeError;
  }
  // What the deltas did not carry (all of it for a model that does not stream).
  if (!mode.json) (io.write ?? io.stdout)(printed.finish(String(result.output ?? '')));
  return EXIT.ok;
}

/** --timeout ran out in the CLI: the daemon did not answer (or finish the stream) even after its own timeout. */
function outOfTime(client: DaemonClient, timeoutMs: number, deadline: CallDeadline, progress: Progress): DaemonUnreachableError {
  const waited = `--timeout ${timeoutMs} ms (gave up after ${deadline.totalMs} ms; URL ${describeOrigin(client.urlOrigin)})`;
  if (progress.accepted) return new DaemonUnreachableError(`the goondan daemon at ${client.url} did not finish the reply within ${waited}: ${afterCut(progress.traceId)}`);
  return new DaemonUnreachableError(
    `the goondan daemon at ${client.url} did not answer POST /v1/events within ${waited}: is it hung or overloaded? See its log; 'kill -TERM' drains it; no event id came back, so the event may not have been accepted`,
  );
}

/** `event …, trace …`: what GET /v1/events/{eventId} and goondan logs --trace look up. */
function replyContext(result: JsonObject): string | undefined {
  const parts = [typeof result.eventId === 'string' ? `event ${result.eventId}` : '', typeof result.traceId === 'string' ? `trace ${result.traceId}` : ''];
  return parts.filter((part) => part !== '').join(', ') || undefined;
}

/** AGENT_REQUEST_TIMEOUT ends the wait, not the event: say where to follow it and how not to wait. */
function formatTimedOut(result: JsonObject): string | undefined {
  const error = printedError(result.error);
  if (error?.code !== 'AGENT_REQUEST_TIMEOUT') return undefined;
  const follow = [
    typeof result.eventId === 'string' ? `GET /v1/events/${result.eventId} shows its state and, once done, its reply` : '',
    typeof result.traceId === 'string' ? `'goondan logs --trace ${result.traceId.slice(0, 8)}' shows its steps` : '',
  ].filter((part) => part !== '');
  const suggestion = `the event is still accepted and its turn goes on${follow.length > 0 ? `: ${follow.join('; ')}` : ''}. Wait longer with --timeout MS, or not at all with --no-wait (prints the event id)`;
  return formatFailure('goondan send', { ...error, suggestion }, error.code, replyContext(result));
}

/**
 * Reads `stream: true`'s event stream: writes the target agent's `step.delta` text as it comes (the
 * agent of the trace's first event unless --agent names it; callees' text is not printed) and
 * returns the final `reply` event's body.
 */
async function readStreamedReply(
  response: Response,
  agent: string | undefined,
  io: CliIo,
  printed: StreamedReply,
  url: string,
  progress: Progress,
  deadline: AbortSignal | undefined,
): Promise<unknown> {
  if (!response.body) return undefined;
  let reply: unknown;
  try {
    for await (const frame of sseFrames(response.body)) {
      if (frame.event === undefined || frame.data === '') continue;
      const parsed: unknown = JSON.parse(frame.data);
      if (frame.event === 'reply') {
        reply = parsed;
        continue;
      }
      if (!isJsonObject(parsed)) continue;
      if (typeof parsed.traceId === 'string') progress.traceId ??= parsed.traceId;
      if (agent === undefined && typeof parsed.agentName === 'string') agent = parsed.agentName;
      if (frame.event !== 'step.delta' || parsed.agentName !== agent || typeof parsed.text !== 'string') continue;
      io.write?.(printed.chunk(String(parsed.stepId), parsed.text));
    }
  } catch (error) {
    io.write?.(printed.lineBreak());
    if (deadline?.aborted) throw error; // --timeout ran out: told by the caller
    throw new DaemonUnreachableError(`the daemon at ${url} cut the reply's stream (${error instanceof Error ? error.message : String(error)}); ${afterCut(progress.traceId)}`);
  }
  if (reply === undefined) {
    io.write?.(printed.lineBreak());
    throw new DaemonUnreachableError(`the daemon at ${url} ended the reply's stream without the reply (it stopped or crashed?); ${afterCut(progress.traceId)}`);
  }
  return reply;
}

/** The event was accepted (the stream had begun): where its turn can be followed. */
function afterCut(traceId: string | undefined): string {
  const follow = traceId !== undefined ? `: 'goondan logs --trace ${traceId.slice(0, 8)}' shows it` : '';
  return `the event was accepted and its turn goes on, or runs after the daemon's next start${follow}`;
}

export const sendCommand: CliCommand = { name: 'send', summary: 'send a message to a running swarm and print the reply', usage, run: send };
