/**
 * `mosh-server new [-s] [-v] [-i IP] [-p PORT[:PORT2]] [-c COLORS] [-l NAME=VALUE]… [-- COMMAND…]`
 * (checked against mosh 1.4's mosh-server.cc): the first `--` anywhere ends its words, and what
 * follows is COMMAND, which it runs on this machine, in the home directory, once a client connects;
 * without one it starts the user's login shell, which runs what the client types. `-h`, `--help` or
 * `--version` before `--` print and exit. Options are read only when `new` is the first word, by
 * getopt (`@:i:p:c:svl:`): clusters (`-vl X=1`), glued values (`-lX=1`), anywhere before `--`, no
 * long options (`--l X=1` is `-` and `-l X=1`); unknown ones are skipped. Without `new`, up to two
 * words (IP, PORT) may come before `--`; more make it exit. Each `-l NAME=VALUE` is put in the
 * environment COMMAND or the shell starts with (when mosh-server's own locale is not UTF-8).
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { dangerousVariable } from './dangerous-environment.ts';
import { type Word, literalWord } from './shell-words.ts';

const VALUED = new Set(['@', 'i', 'p', 'c', 'l']);
const EXITS = new Set(['-h', '--help', '--version']);

/** The `-l` values getopt reads from the words between `new` and `--` (it permutes: operands may come first). */
function localeVariables(words: readonly Word[]): Word[] {
  const found: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const text = words[i]?.text ?? '';
    if (!text.startsWith('-') || text === '-') continue;
    for (let j = 1; j < text.length; j++) {
      const letter = text[j] ?? '';
      if (!VALUED.has(letter)) continue;
      const value = j + 1 < text.length ? literalWord(text.slice(j + 1)) : words[++i];
      if (letter === 'l' && value) found.push(value);
      break;
    }
  }
  return found;
}

function runMoshServer(call: CommandCall): CommandFacts {
  const end = call.args.findIndex((w) => w.literal && w.text === '--');
  const options = end < 0 ? call.args : call.args.slice(0, end);
  const command = end < 0 ? [] : call.args.slice(end + 1);
  const runtime = options.find((w) => !w.literal);
  if (runtime) call.unresolved(`mosh-server has an argument only known at run time (${runtime.text}), which may be \`--\` (what follows is then the command it runs) or -l NAME=VALUE; write it out`);
  const isNew = options[0]?.literal === true && options[0].text === 'new';
  // Words known before the line runs: `-h` makes it exit, and so do more than IP and PORT in the old form (it prints its usage).
  if (!runtime && (options.some((w) => EXITS.has(w.text)) || (!isNew && options.length > 2))) return {};
  for (const variable of isNew ? localeVariables(options.slice(1)) : []) {
    const eq = variable.text.indexOf('=');
    const why = dangerousVariable(eq < 0 ? variable.text : variable.text.slice(0, eq));
    if (why) call.unresolved(`mosh-server -l ${variable.text}: ${why}; -l is for locale variables (LANG, LC_*)`);
  }
  // The command (or shell) starts in the home directory: its relative writes land there.
  call.chdir(literalWord('~'));
  if (command.length > 0) call.run(command, 'mosh-server');
  else call.unresolved('mosh-server without `-- COMMAND` starts the user’s login shell, which runs what its client types; the line does not show it: name the command after `--`');
  return {};
}

export const moshServerHandlers = (): Array<[string, CommandHandler]> => [['mosh-server', runMoshServer]];
