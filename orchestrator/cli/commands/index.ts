/** Every `goondan` subcommand, in the order `goondan --help` lists them. */
import type { CliCommand } from '../command.ts';

export const commands: readonly CliCommand[] = [];
