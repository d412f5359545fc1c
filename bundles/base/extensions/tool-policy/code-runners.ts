/**
 * Commands that run shell code given as text: `sh -c CODE` (and bash, dash, zsh…), a shell fed a
 * here-document, `eval`, `trap`, `mapfile -C`. Literal code is parsed and judged like the line;
 * code only known at run time (`eval "$x"`, `curl … | sh`, `source file`) is unresolved.
 * Builtins that set variables by name (`read PATH`, `printf -v PATH`) are checked like assignments.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { dangerousVariable } from './dangerous-environment.ts';
import { optionValues, scanOptions } from './option-scan.ts';
import { ARITHMETIC_CODE } from './shell-arithmetic.ts';
import type { Word } from './shell-words.ts';

const SHELLS = ['sh', 'bash', 'dash', 'zsh', 'ksh', 'ksh93', 'mksh', 'lksh', 'oksh', 'ash', 'yash', 'posh', 'rbash', 'fish', 'csh', 'tcsh'];
/** Shell options whose value is the next word (`-o pipefail`, `+O extglob`). */
const SHELL_VALUED = /^[-+][A-Za-z]*[oO]$/;
const STDIN_SOURCE: Record<string, string> = { pipe: 'a pipe', file: 'a file', inherited: 'standard input' };

/** `sh [options] [-c CODE | SCRIPT | (program on stdin)] [args…]`. */
function runShell(call: CommandCall): CommandFacts {
  let command = false;
  let stdinMode = false;
  let i = 0;
  for (; i < call.args.length; i++) {
    const word = call.args[i];
    if (!word) break;
    if (!word.literal) {
      if (command) break;
      call.unresolved(`an argument of ${call.name} is only known at run time (${word.text}): it may be -c CODE`);
      return {};
    }
    const text = word.text;
    if (text === '--' || text === '-') {
      i += 1;
      break;
    }
    if (text === '--rcfile' || text === '--init-file') call.unresolved(`${call.name} ${text} runs start-up code from a file the line does not show`);
    if (text.startsWith('--')) {
      if (text === '--rcfile' || text === '--init-file') i += 1;
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(text)) break;
    if (text.startsWith('-') && text.includes('c')) command = true;
    if (text.includes('s')) stdinMode = true;
    if (SHELL_VALUED.test(text)) i += 1;
  }
  const operand = call.args[i];
  if (command) {
    if (operand) call.runCode(operand, `${call.name} -c`);
    return {};
  }
  // A script file: judged by the command's words like any program.
  if (operand && !stdinMode) return {};
  const stdin = call.scope.stdin;
  if (stdin.kind === 'text') call.runCode({ text: stdin.text, literal: stdin.literal, pattern: false }, `${call.name} <<…`);
  else call.unresolved(`${call.name} reads its program from ${STDIN_SOURCE[stdin.kind] ?? 'standard input'}, which the line does not show`);
  return {};
}

function runEval(call: CommandCall): CommandFacts {
  if (call.args.length > 0) call.runCode({ text: call.args.map((w) => w.text).join(' '), literal: call.args.every((w) => w.literal), pattern: false }, 'eval');
  return {};
}

function runSource(call: CommandCall): CommandFacts {
  call.unresolved(`${call.name} runs the code in ${call.args[0]?.text ?? 'a file'}, which the line does not show`);
  return {};
}

/** `trap [--] ACTION SIGNAL…`: ACTION is code run later in this shell. */
function runTrap(call: CommandCall): CommandFacts {
  const args = call.args[0]?.text === '--' ? call.args.slice(1) : call.args;
  const [action, ...signals] = args;
  if (action && signals.length > 0 && !(action.literal && (action.text === '-' || action.text.startsWith('-')))) call.runCode(action, 'trap');
  return {};
}

function checkNames(call: CommandCall, names: readonly Word[]): void {
  for (const name of names) {
    if (!name.literal) call.unresolved(`${call.name} sets a variable whose name is only known at run time (${name.text})`);
    const why = dangerousVariable(name.text.replace(/[+]?=.*$/s, '').replace(/\[.*$/s, ''));
    if (why) call.unresolved(why);
  }
}

const setsNamed =
  (valued: string[], nameOptions: string[], operandsAreNames: (operands: Word[]) => Word[]): CommandHandler =>
  (call) => {
    const scan = scanOptions(call.args, { valued });
    checkNames(call, [...optionValues(scan, ...nameOptions), ...operandsAreNames(call.args.slice(scan.rest))]);
    return {};
  };

/** `let y=x` evaluates x's value as an expression: see shell-arithmetic.ts. */
function runLet(call: CommandCall): CommandFacts {
  checkNames(call, call.args);
  if (call.args.some((w) => !w.literal || /[A-Za-z_]/.test(w.text.replace(/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?[-+*/%<>&^|]?=/, '')))) call.unresolved(ARITHMETIC_CODE);
  return {};
}

function runMapfile(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: ['-d', '-n', '-O', '-s', '-u', '-C', '-c'] });
  for (const callback of optionValues(scan, '-C')) call.runCode(callback, `${call.name} -C`);
  checkNames(call, call.args.slice(scan.rest));
  return {};
}

/** `alias x=…` defines commands; `hash -p FILE name` and `enable -f LIB name` change what a name runs. */
const changesNames =
  (flag: string | undefined, why: string): CommandHandler =>
  (call) => {
    if (flag === undefined ? call.args.some((w) => w.text.includes('=')) : call.args.some((w) => w.literal && w.text.startsWith('-') && w.text.includes(flag))) call.unresolved(why);
    return {};
  };

export const codeRunnerHandlers = (): Array<[string, CommandHandler]> => [
  ...SHELLS.map((name): [string, CommandHandler] => [name, runShell]),
  ['eval', runEval],
  ['source', runSource],
  ['.', runSource],
  ['trap', runTrap],
  ['mapfile', runMapfile],
  ['readarray', runMapfile],
  ['read', setsNamed(['-a', '-d', '-i', '-n', '-N', '-p', '-t', '-u'], ['-a'], (operands) => operands)],
  ['printf', setsNamed(['-v'], ['-v'], () => [])],
  ['getopts', setsNamed([], [], (operands) => operands.slice(1, 2))],
  ['let', runLet],
  ['alias', changesNames(undefined, 'alias defines a command the line does not show')],
  ['hash', changesNames('p', 'hash -p points a command name at another program')],
  ['enable', changesNames('f', 'enable -f loads a builtin from a shared library')],
];
