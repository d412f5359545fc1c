/**
 * What a command handler sees of one simple command (program name and argument words) and what
 * it can report: another command it runs, code it runs, a file it writes, a directory change, or
 * a part that cannot be judged before the line runs.
 */
import type { Scope } from './shell-analysis.ts';
import type { Word } from './shell-words.ts';

export interface CommandCall {
  /** The program's basename (`/usr/bin/env` → `env`). */
  name: string;
  args: Word[];
  scope: Scope;
  /** A command this one starts with these words (`xargs rm` → `rm …`), judged like any other. */
  run(words: Word[], label: string): void;
  /** Shell code this command runs (`sh -c CODE`, `eval CODE`), parsed and judged like the line. */
  runCode(code: Word, label: string): void;
  /** A file this command writes. */
  write(target: Word, how: string): void;
  /** A directory later commands of the line may run in; undefined when not known before it runs. */
  chdir(target: Word | undefined): void;
  unresolved(why: string): void;
}

export interface CommandFacts {
  /** Why what this program does cannot be read from the line: only an allow rule naming it allows it. */
  opaque?: string;
  /** A shell keyword or builtin that only runs its argument command (`command`, `exec`, `time`): not a program to allow. */
  transparent?: boolean;
  /** The operands on another machine it copies files to or from (`host:dst`, `rsync://host/m`, sftp's `host`): not a local copy. */
  remotes?: string[];
}

export type CommandHandler = (call: CommandCall) => CommandFacts | undefined;
