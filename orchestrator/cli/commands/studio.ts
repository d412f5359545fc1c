/** `goondan studio [--open]`: a one-time login link to the running daemon's web UI. */
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { isJsonObject } from '../../../shared/types/json.ts';
import { type CliCommand, type CliIo, parseOptions } from '../command.ts';
import { connectToDaemon } from '../daemon-client.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { formatDaemonFailure } from '../daemon-failure.ts';

const usage = `Usage: goondan studio [--open] [--state-root DIR]

Print a link to the studio of the running daemon (its web UI at /studio). The link carries a
one-time login code: it works once, within two minutes, and leaves a session cookie in the
browser that opened it. Without a code the page asks for the API token instead.

Options:
      --open            also open the link in a browser (xdg-open)
      --state-root DIR  where to find the daemon (default $GOONDAN_STATE_ROOT, else ~/.goondan)

On a server: 'ssh -L 7420:127.0.0.1:7420 HOST' and keep that session open (it carries the
tunnel); run 'goondan studio' in it, and open the printed link locally.`;

/** xdg-open returns once the browser has the URL; one that blocks (a terminal browser) is left running. */
const OPENER_WAIT_MS = 5_000;

async function studio(argv: string[], io: CliIo): Promise<ExitCode> {
  const values = parseOptions({ args: argv, options: { open: { type: 'boolean' }, 'state-root': { type: 'string' } } }).values;
  const client = connectToDaemon(resolveStateRoot(values['state-root']));
  const response = await client.request('POST', '/v1/studio/login-codes');
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    io.stderr(formatDaemonFailure('goondan studio', client, response.status, body));
    return EXIT.runtimeError;
  }
  if (!isJsonObject(body) || typeof body.path !== 'string') {
    io.stderr(`goondan studio: unexpected response ${response.status} from ${client.url}`);
    return EXIT.runtimeError;
  }
  const url = `${client.url}${body.path}`;
  io.stdout(url);
  io.stderr('The link works once, within two minutes.');
  if (values.open) {
    const problem = await openInBrowser(url);
    if (problem) io.stderr(`goondan studio: could not open a browser (${problem}); open the link above yourself`);
  }
  return EXIT.ok;
}

/** Undefined when the opener accepted the URL, else why not. */
async function openInBrowser(url: string): Promise<string | undefined> {
  let opener: ReturnType<typeof Bun.spawn>;
  try {
    opener = Bun.spawn(['xdg-open', url], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const code = await Promise.race([opener.exited, Bun.sleep(OPENER_WAIT_MS).then(() => undefined)]);
  if (code === undefined) {
    opener.unref();
    return undefined;
  }
  return code === 0 ? undefined : `xdg-open exited with ${code}`;
}

export const studioCommand: CliCommand = { name: 'studio', summary: 'print (and open) a login link to the web UI of the running daemon', usage, run: studio };
