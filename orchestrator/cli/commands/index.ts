/**
 * Every `goondan` subcommand, in the order `goondan --help` lists them. A command's module is
 * imported only when it runs (or shows its own help): `goondan --help` and `validate` must not
 * load the daemon and the model SDKs.
 */
import type { CliCommand } from '../command.ts';

export interface CommandEntry {
  name: string;
  /** One line for `goondan --help` (the same as the command's own `summary`). */
  summary: string;
  load(): Promise<CliCommand>;
}

export const commands: readonly CommandEntry[] = [
  { name: 'run', summary: 'start a swarm in the foreground (the daemon)', load: async () => (await import('./run.ts')).runCommand },
  { name: 'validate', summary: 'check a bundle and report every problem with file:line', load: async () => (await import('./validate.ts')).validateCommand },
  { name: 'send', summary: 'send a message to a running swarm and print the reply', load: async () => (await import('./send.ts')).sendCommand },
  { name: 'ps', summary: 'list the processes of the running daemon', load: async () => (await import('./ps.ts')).psCommand },
  { name: 'logs', summary: 'print (and follow) runtime events: turns, steps, tool calls', load: async () => (await import('./logs.ts')).logsCommand },
  { name: 'instance', summary: 'list or delete conversation instances and their state', load: async () => (await import('./instance.ts')).instanceCommand },
];
