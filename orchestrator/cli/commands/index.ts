/**
 * Every `goondan` subcommand, in the order `goondan --help` lists them. A command's module is
 * imported only when it runs (or shows its own help): `goondan --help` and `validate` must not
 * load the daemon and the model SDKs.
 */
import type { CliCommand } from '../command.ts';

export interface CommandEntry {
  name: string;
  /** One line for `goondan --help` (the same as the command's own `summary`; a test checks it). */
  summary: string;
  load(): Promise<CliCommand>;
}

export const commands: readonly CommandEntry[] = [
  { name: 'init', summary: 'write a new bundle that runs offline at once (from a template)', load: async () => (await import('./init.ts')).initCommand },
  { name: 'run', summary: 'start a swarm in the foreground (the daemon)', load: async () => (await import('./run.ts')).runCommand },
  { name: 'validate', summary: 'check a bundle and report every problem with file:line', load: async () => (await import('./validate.ts')).validateCommand },
  { name: 'doctor', summary: 'check the machine and a bundle for what goondan run needs', load: async () => (await import('./doctor.ts')).doctorCommand },
  { name: 'send', summary: 'send a message to a running swarm and print the reply', load: async () => (await import('./send.ts')).sendCommand },
  { name: 'ps', summary: 'list the processes of the running daemon', load: async () => (await import('./ps.ts')).psCommand },
  { name: 'logs', summary: 'print (and follow) runtime events: turns, steps, tool calls', load: async () => (await import('./logs.ts')).logsCommand },
  { name: 'restart', summary: 'restart agent processes of the running daemon (--fresh: and clear their state)', load: async () => (await import('./restart.ts')).restartCommand },
  { name: 'instance', summary: 'list or delete conversation instances and their state', load: async () => (await import('./instance.ts')).instanceCommand },
  { name: 'studio', summary: 'print (and open) a login link to the web UI of the running daemon', load: async () => (await import('./studio.ts')).studioCommand },
];
