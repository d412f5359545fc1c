#!/usr/bin/env bun
/** `goondan` entry: dispatches to one command module per subcommand. */
import type { CliIo } from './command.ts';
import { UsageError } from './usage-error.ts';
import { DaemonNotFoundError } from './daemon-not-found-error.ts';
import { DaemonUnreachableError } from './daemon-unreachable-error.ts';
import { SeveralDaemonsError } from './several-daemons-error.ts';
import { EXIT } from './exit-codes.ts';
import { type CommandEntry, commands } from './commands/index.ts';
import { terminalLines } from '../../shared/terminal-text.ts';

// What reaches a terminal's stdout (a model's reply, instance keys from chat users) cannot drive it:
// its control characters are shown as escapes. A pipe gets the bytes as they are.
const onScreen = process.stdout.isTTY === true ? terminalLines : (text: string) => text;
const io: CliIo = {
  stdout: (text) => process.stdout.write(onScreen(text.endsWith('\n') ? text : `${text}\n`)),
  stderr: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  write: (text) => process.stdout.write(onScreen(text)),
};

function globalHelp(list: readonly CommandEntry[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return [
    'goondan — run multi-agent LLM swarms declared in YAML',
    '',
    'Usage: goondan <command> [options]',
    '',
    'Commands:',
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'goondan <command> --help' for a command's options.",
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(globalHelp(commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default;
    io.stdout(pkg.version);
    return EXIT.ok;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr(`goondan: unknown command '${name}'\n\n${globalHelp(commands)}`);
    return EXIT.usage;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`goondan ${command.name}: ${error.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    // Not a bug of goondan: one line saying what to do, no stack.
    if (error instanceof DaemonNotFoundError || error instanceof DaemonUnreachableError || error instanceof SeveralDaemonsError) {
      io.stderr(`goondan ${command.name}: ${error.message}`);
      return EXIT.runtimeError;
    }
    io.stderr(`goondan ${command.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.runtimeError;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2));
  // Exit explicitly: a finished command must not linger on an idle handle (sockets, timers).
  process.exit(code);
}
