/**
 * A real daemon stopped with SIGSTOP (hung: it takes connections and answers nothing): every
 * command that talks to it gives up — after GOONDAN_CLI_ANSWER_TIMEOUT_MS, or for `send --timeout
 * MS` after about MS — with one line naming the daemon's URL, and exits 1. Before, send, restart and
 * instance delete waited for ever. The daemon is continued and stopped cleanly afterwards.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { DAEMON_TEST_MS, type Daemon, REPO_ROOT, startDaemon } from '../e2e/daemon-harness.ts';
import { type CliRun, goondan } from './goondan-cli.ts';

const ANSWER_MS = 1_500;
/** Past the deadline: a fresh Bun process per command starts in seconds on a loaded machine. */
const BOUND_MS = 20_000;

let daemon: Daemon | undefined;
beforeAll(async () => {
  daemon = await startDaemon(`${REPO_ROOT}/tests/fixtures/e2e/swarm`);
  process.kill(daemon.proc.pid, 'SIGSTOP');
  for (const [args, answerMs] of COMMANDS) void timed(args, answerMs);
}, DAEMON_TEST_MS);
afterAll(async () => {
  if (!daemon) return;
  process.kill(daemon.proc.pid, 'SIGCONT');
  await daemon.stop();
  daemon.cleanup();
}, DAEMON_TEST_MS);

/** The runs, started together (each waits seconds for a daemon that never answers): a test awaits its own. */
const runs = new Map<string, Promise<CliRun & { ms: number }>>();

function timed(args: string[], answerMs = ANSWER_MS): Promise<CliRun & { ms: number }> {
  const key = `${answerMs} ${args.join(' ')}`;
  const known = runs.get(key);
  if (known) return known;
  if (!daemon) throw new Error('the daemon has not started');
  const started = Date.now();
  const run = goondan([...args, '--state-root', daemon.stateRoot], { env: { GOONDAN_CLI_ANSWER_TIMEOUT_MS: String(answerMs) } }).then((result) => ({ ...result, ms: Date.now() - started }));
  runs.set(key, run);
  return run;
}

const COMMANDS: Array<[string[], number?]> = [
  [['send', 'hi']],
  [['send', 'hi', '--timeout', '2000'], 600_000],
  [['send', 'hi', '--json', '--timeout', '2000'], 600_000],
  [['send', 'hi', '--json']],
  [['send', 'hi', '--no-wait']],
  [['restart', '--fresh', '--yes']],
  [['instance', 'delete', 'some-key']],
];

function expectGivenUp(run: CliRun & { ms: number }, command: string, what: string): void {
  expect(run.code).toBe(1);
  expect(run.ms).toBeLessThan(BOUND_MS);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toStartWith(`goondan ${command}: the goondan daemon at ${daemon?.url} ${what}`);
  expect(run.stderr).toContain('is it hung or overloaded?');
}

test('send (streamed): no answer within GOONDAN_CLI_ANSWER_TIMEOUT_MS; the event may not have been accepted', async () => {
  const run = await timed(['send', 'hi']);
  expectGivenUp(run, 'send', `did not answer POST /v1/events within ${ANSWER_MS} ms`);
  expect(run.stderr).toContain('the event may not have been accepted');
  expect(run.stderr).not.toContain('AGENT_REQUEST_TIMEOUT');
});

test('send --timeout 2000 bounds the call when the answer is due sooner than GOONDAN_CLI_ANSWER_TIMEOUT_MS', async () => {
  const run = await timed(['send', 'hi', '--timeout', '2000'], 600_000);
  expectGivenUp(run, 'send', 'did not answer POST /v1/events within 2000 ms (--timeout;');
  expect(run.stderr).toContain('the event may not have been accepted');
  expect(run.stderr).not.toContain('AGENT_REQUEST_TIMEOUT');
});

test('send --json --timeout 2000 (the answer is the reply, due at 2000 ms): given up a little later', async () => {
  const run = await timed(['send', 'hi', '--json', '--timeout', '2000'], 600_000);
  expectGivenUp(run, 'send', 'did not answer POST /v1/events within --timeout 2000 ms (gave up after 3200 ms;');
  expect(run.stderr).toContain('the event may not have been accepted');
  expect(run.stdout).toBe('');
});

test('send --json (the answer is the reply): GET /healthz must keep answering meanwhile', async () => {
  const run = await timed(['send', 'hi', '--json']);
  expectGivenUp(run, 'send', `stopped answering while POST /v1/events waited: GET /healthz got no answer within ${ANSWER_MS} ms`);
});

test('send --no-wait', async () => {
  expectGivenUp(await timed(['send', 'hi', '--no-wait']), 'send', `did not answer POST /v1/events within ${ANSWER_MS} ms`);
});

test('restart --yes', async () => {
  const run = await timed(['restart', '--fresh', '--yes']);
  expectGivenUp(run, 'restart', 'stopped answering while POST /v1/restart waited');
  expect(run.stderr).toContain("see 'goondan ps' once it answers");
});

test('instance delete KEY', async () => {
  const run = await timed(['instance', 'delete', 'some-key']);
  expectGivenUp(run, 'instance', 'stopped answering while DELETE /v1/instances/some-key waited');
});
