/**
 * `find` and `xargs` run commands built from their arguments. `find -exec CMD {} ;` (and -execdir,
 * -ok, -okdir) runs CMD; `find DIRS … -delete` deletes and is judged as `rm -rf DIRS` (so a
 * `rm *` deny rule catches it); `-fprint FILE` writes FILE. `xargs CMD ARGS` runs CMD with ARGS and
 * words read from its input, which are unknown: `xargs rm` is judged as `rm <xargs input>`.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { hasOption, optionValues, scanOptions } from './option-scan.ts';
import { type Word, literalWord, runtimeWord } from './shell-words.ts';

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const WRITE_ACTIONS = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);
const EXPRESSION_START = new Set(['(', ')', '!', ',']);
/** Words standing for input: a command whose words contain them is only known when it runs. */
const FIND_PLACEHOLDER = '{}';
const XARGS_INPUT = '<xargs input>';

const startsExpression = (word: Word) => word.literal && (word.text.startsWith('-') || EXPRESSION_START.has(word.text));
const withPlaceholder = (words: readonly Word[], placeholder: string): Word[] => words.map((w) => (w.text.includes(placeholder) ? runtimeWord(w.text) : w));

function runFind(call: CommandCall): CommandFacts {
  const args = call.args;
  let i = 0;
  // Leading -H/-L/-P/-O3 and -D debugopts.
  while (i < args.length && args[i]?.literal && /^-([HLP]|O\d*|D)$/.test(args[i]?.text ?? '')) i += args[i]?.text === '-D' ? 2 : 1;
  const paths: Word[] = [];
  for (; i < args.length; i++) {
    const word = args[i];
    if (!word || startsExpression(word)) break;
    paths.push(word);
  }
  for (; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (!word.literal) {
      // Only the value of the preceding test may be computed (`-name "$p"`); an action may not.
      if (!args[i - 1]?.literal || !args[i - 1]?.text.startsWith('-')) call.unresolved(`find has an expression word only known at run time (${word.text})`);
      continue;
    }
    if (EXEC_ACTIONS.has(word.text)) {
      const end = args.findIndex((w, k) => k > i && w.literal && (w.text === ';' || w.text === '+'));
      const command = args.slice(i + 1, end < 0 ? args.length : end);
      call.run(withPlaceholder(command, FIND_PLACEHOLDER), `find ${word.text}`);
      i = end < 0 ? args.length : end;
    } else if (word.text === '-delete') {
      call.run([literalWord('rm'), literalWord('-rf'), ...(paths.length > 0 ? paths : [literalWord('.')])], 'find -delete');
    } else if (WRITE_ACTIONS.has(word.text)) {
      const target = args[i + 1];
      if (target) call.write(target, `find ${word.text}`);
      i += 1;
    }
  }
  return {};
}

const XARGS_VALUED = ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '--max-lines', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'];

/** The replace-string of `-I R`, `-i[R]` or `--replace[=R]` (default `{}`), if any. */
function replaceString(call: CommandCall, scanned: ReturnType<typeof scanOptions>): string | undefined {
  const explicit = optionValues(scanned, '-I', '--replace')[0];
  if (explicit) return explicit.text;
  const glued = call.args.find((w) => w.literal && /^-i./.test(w.text));
  if (glued) return glued.text.slice(2);
  return hasOption(scanned, '-i', '--replace') ? FIND_PLACEHOLDER : undefined;
}

function runXargs(call: CommandCall): CommandFacts {
  const scanned = scanOptions(call.args, { valued: XARGS_VALUED });
  if (scanned.runtimeWord) {
    call.unresolved(`xargs has an option only known at run time (${scanned.runtimeWord.text}), so the command it runs is unknown`);
    return {};
  }
  const command = call.args.slice(scanned.rest);
  // Without a command xargs runs echo.
  if (command.length === 0) return {};
  const replace = replaceString(call, scanned);
  call.run(replace ? withPlaceholder(command, replace) : [...command, runtimeWord(XARGS_INPUT)], 'xargs');
  return {};
}

export const findAndXargsHandlers = (): Array<[string, CommandHandler]> => [
  ['find', runFind],
  ['xargs', runXargs],
];
