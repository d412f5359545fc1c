/** Every `goondan` subcommand, in the order `goondan --help` lists them. */
import type { CliCommand } from '../command.ts';
import { doctorCommand } from './doctor.ts';
import { initCommand } from './init.ts';
import { instanceCommand } from './instance.ts';
import { logsCommand } from './logs.ts';
import { psCommand } from './ps.ts';
import { restartCommand } from './restart.ts';
import { runCommand } from './run.ts';
import { sendCommand } from './send.ts';
import { studioCommand } from './studio.ts';
import { validateCommand } from './validate.ts';

export const commands: readonly CliCommand[] = [initCommand, runCommand, validateCommand, doctorCommand, sendCommand, psCommand, logsCommand, restartCommand, instanceCommand, studioCommand];
