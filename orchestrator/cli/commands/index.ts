/** Every `goondan` subcommand, in the order `goondan --help` lists them. */
import type { CliCommand } from '../command.ts';
import { instanceCommand } from './instance.ts';
import { logsCommand } from './logs.ts';
import { psCommand } from './ps.ts';
import { runCommand } from './run.ts';
import { sendCommand } from './send.ts';
import { studioCommand } from './studio.ts';
import { validateCommand } from './validate.ts';

export const commands: readonly CliCommand[] = [runCommand, validateCommand, sendCommand, psCommand, logsCommand, instanceCommand, studioCommand];
