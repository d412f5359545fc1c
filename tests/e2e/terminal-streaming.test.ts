/**
 * Token streaming in the terminal (issue 13): the `cli` connector's chat and the one-shot
 * `goondan run --input` print the entry agent's reply as the model produces it. The model is a
 * fake server that holds its reply after the first words until the test has seen them, so text
 * seen then was printed before the turn could complete; once released, the whole reply is printed
 * exactly once and the screen ends as a non-streaming print would. Text of an agent the entry
 * agent calls (same trace) is not the reply and is not printed as it.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { GOONDAN_BIN, startTerminalRun, tempStateRoot, terminalShows, waitFor } from './daemon-harness.ts';
import { FIRST_WORDS, type GatedChatServer, LAST_WORDS, REPLY, startGatedChatServer } from './gated-chat-server.ts';

const HELPER_TEXT = 'helper whispers secret words';
const servers: GatedChatServer[] = [];
const stateRoots: string[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop();
  for (const dir of stateRoots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateRoot(): string {
  const dir = tempStateRoot();
  stateRoots.push(dir);
  return dir;
}

function gatedServer(): GatedChatServer {
  const server = startGatedChatServer();
  servers.push(server);
  return server;
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;
/** What the terminal shows as plain text: without readline's cursor escapes and carriage returns. */
const screen = (output: string) => output.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replaceAll('\r', '');

/**
 * `goondan run --input TEXT` with its output read as it comes: in a terminal (under `script`, a
 * real pseudo-terminal; stderr shows there too), or with stdout a pipe.
 */
function oneShot(bundle: string, input: string, where: 'terminal' | 'pipe') {
  const command = [GOONDAN_BIN, 'run', bundle, '--input', input, '--state-root', stateRoot()];
  const argv = where === 'terminal' ? ['script', '-qfec', command.map((arg) => `'${arg}'`).join(' '), '/dev/null'] : command;
  const proc = Bun.spawn(argv, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  let stdout = '';
  const reading = (async () => {
    for await (const text of proc.stdout.pipeThrough(new TextDecoderStream())) stdout += text;
  })();
  const stderr = new Response(proc.stderr).text();
  return {
    stdout: () => stdout,
    async finished() {
      const code = await proc.exited;
      await reading;
      return { code, stdout, stderr: await stderr };
    },
    kill: () => proc.exitCode === null && proc.kill('SIGKILL'),
  };
}

describe('the terminal chat (cli connector) streams the reply', () => {
  test('the swarm’s banner comes first, then the prompt on a line of its own', async () => {
    // Here the pool's first spare, which the banner waits for, boots after the cli connector (it
    // loads its model's provider first): a prompt shown at once had the banner land after it, or
    // in the middle of a first reply.
    const terminal = await startTerminalRun(gatedServer().bundle, stateRoot());
    try {
      const shown = screen(terminal.output());
      expect(shown.startsWith("goondan: swarm 'terminal-streaming' running")).toBe(true);
      expect(shown.endsWith("Talk to 'talker' below. Ctrl-D or Ctrl-C to quit.\n> ")).toBe(true);
      terminal.type('\u0004');
      expect(await terminal.exited()).toBe(0);
    } finally {
      if (terminal.proc.exitCode === null) terminal.proc.kill('SIGKILL');
    }
  });

  test('the first words are on the terminal while the model still holds the rest; then the whole reply, once, and the prompt', async () => {
    const server = gatedServer();
    const terminal = await startTerminalRun(server.bundle, stateRoot());
    try {
      terminal.type('hello\n');
      await terminalShows(terminal, FIRST_WORDS.trim(), 'the first streamed words while the model holds the rest');
      // The server has not sent these yet: the turn cannot have completed.
      expect(server.held()).toBe(1);
      expect(terminal.output()).not.toContain(LAST_WORDS);
      server.release();
      await terminalShows(terminal, LAST_WORDS, 'the rest of the reply');
      await waitFor('the prompt after the reply', () => screen(terminal.output()), (shown) => shown.includes(`${REPLY}\n> `));
      expect(occurrences(terminal.output(), REPLY)).toBe(1);
      // The next line is a turn like the first (the reply is not held any more).
      terminal.type('again\n');
      await waitFor('the second reply', () => occurrences(terminal.output(), REPLY), (count) => count === 2);
      terminal.type('\u0004');
      expect(await terminal.exited()).toBe(0);
    } finally {
      if (terminal.proc.exitCode === null) terminal.proc.kill('SIGKILL');
    }
  });

  test('Ctrl-D while a reply streams: the reply is finished, then the run exits 0', async () => {
    const server = gatedServer();
    const root = stateRoot();
    const terminal = await startTerminalRun(server.bundle, root);
    try {
      terminal.type('hello\n');
      await terminalShows(terminal, FIRST_WORDS.trim(), 'the first streamed words while the model holds the rest');
      terminal.type('\u0004');
      // The reply comes only after the connector has taken the Ctrl-D (it logs that).
      const log = join(root, 'runtime', 'logs', 'goondan.log');
      await waitFor(`the cli connector to log that its input closed (${log})`, () => (existsSync(log) ? readFileSync(log, 'utf8') : ''), (text) => text.includes('"msg":"terminal input closed"'));
      server.release();
      expect(await terminal.exited()).toBe(0);
      expect(occurrences(screen(terminal.output()), `${REPLY}\n`)).toBe(1);
    } finally {
      if (terminal.proc.exitCode === null) terminal.proc.kill('SIGKILL');
    }
  });

  test("a called agent's streamed text is not printed as the reply", async () => {
    const server = gatedServer();
    server.release();
    const terminal = await startTerminalRun(server.bundle, stateRoot());
    try {
      terminal.type('ask the helper\n');
      await waitFor('the reply and the prompt after it', () => screen(terminal.output()), (shown) => shown.includes(`${REPLY}\n> `));
      // The helper's words show once: in the exchange line on stderr ("helper → talker  replies: …"), not in the reply.
      const shown = terminal.output();
      expect(shown).toContain(`replies: ${HELPER_TEXT}`);
      expect(occurrences(shown, HELPER_TEXT)).toBe(1);
      terminal.type('\u0004');
      expect(await terminal.exited()).toBe(0);
    } finally {
      if (terminal.proc.exitCode === null) terminal.proc.kill('SIGKILL');
    }
  });
});

describe('goondan run --input in a terminal streams the reply', () => {
  test('the first words are on the terminal while the model holds the rest; then the rest, the reply shown once', async () => {
    const server = gatedServer();
    const run = oneShot(server.bundle, 'hello', 'terminal');
    try {
      await waitFor('the first streamed words in the terminal while the model holds the rest', run.stdout, (shown) => shown.includes(FIRST_WORDS.trim()));
      expect(server.held()).toBe(1);
      expect(run.stdout()).not.toContain(LAST_WORDS);
      server.release();
      const { code, stdout } = await run.finished();
      expect(code).toBe(0);
      expect(occurrences(screen(stdout), `${REPLY}\n`)).toBe(1);
    } finally {
      run.kill();
    }
  });

  test("a called agent's streamed text is not printed as the reply", async () => {
    const server = gatedServer();
    server.release();
    const { code, stdout } = await oneShot(server.bundle, 'ask the helper', 'terminal').finished();
    expect(code).toBe(0);
    expect(occurrences(screen(stdout), `${REPLY}\n`)).toBe(1);
    // Once, in the exchange line on stderr ("helper → talker  replies: …"): the helper did stream, and was left out.
    expect(screen(stdout)).toContain(`replies: ${HELPER_TEXT}`);
    expect(occurrences(stdout, HELPER_TEXT)).toBe(1);
  });
});

describe('goondan run --input into a pipe prints the reply alone', () => {
  test('stdout is byte-identical to the reply and its line end (text cannot be taken back from a pipe)', async () => {
    const server = gatedServer();
    server.release();
    const { code, stdout, stderr } = await oneShot(server.bundle, 'ask the helper', 'pipe').finished();
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(`${REPLY}\n`);
  });
});
