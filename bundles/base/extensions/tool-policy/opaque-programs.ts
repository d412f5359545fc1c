/**
 * Programs whose effect the policy cannot read from the line: interpreters given inline code
 * (`python -c`, `perl -e`, `node -e`, `php -r`…) or code on standard input, awk programs that call
 * system() or pipe, sed scripts with `e`/`w`, and command runners the policy does not unwrap
 * (`strace`, editors such as `vim`, `ex` and `ed`, whose `!cmd` runs commands…). They are *opaque*: only an allow rule that names the program
 * (`python3 -c *`, not `*`) can allow them; deny and ask rules match them like any command.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { hasOption, mayBeOption, optionValues, scanOptions } from './option-scan.ts';

interface InterpreterSpec {
  /** Options whose value is program text. */
  inline: readonly string[];
  /** Other options whose value is the next word. */
  valued?: readonly string[];
  /** Options naming the program elsewhere (`python -m MODULE`): no script operand follows. */
  named?: readonly string[];
  /** Without a script operand the program is read from standard input (or a REPL). */
  readsStdin: boolean;
}

const INTERPRETERS: Array<[RegExp, InterpreterSpec]> = [
  [/^(python|pypy)[0-9.]*$/, { inline: ['-c'], valued: ['-W', '-X', '-Q'], named: ['-m'], readsStdin: true }],
  [/^perl[0-9.]*$/, { inline: ['-e', '-E'], readsStdin: true }],
  [/^ruby[0-9.]*$/, { inline: ['-e'], valued: ['-I', '-r', '-C', '-E'], readsStdin: true }],
  [/^(node|nodejs)$/, { inline: ['-e', '--eval', '-p', '--print'], valued: ['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--input-type'], readsStdin: true }],
  [/^bun$/, { inline: ['-e', '--eval', '-p', '--print'], valued: ['-r', '--preload', '--cwd', '--config', '-c'], readsStdin: false }],
  [/^php[0-9.]*$/, { inline: ['-r', '-B', '-R', '-E'], valued: ['-c', '-d', '-z', '-t', '-F'], readsStdin: true }],
  [/^(lua|luajit)[0-9.]*$/, { inline: ['-e'], valued: ['-l'], readsStdin: true }],
  [/^(R|Rscript)$/, { inline: ['-e', '--expr'], readsStdin: true }],
  [/^julia$/, { inline: ['-e', '-E', '--eval', '--print'], readsStdin: true }],
  [/^(osascript|expect)$/, { inline: ['-e', '-c'], readsStdin: true }],
  [/^(tclsh|wish)[0-9.]*$/, { inline: [], readsStdin: true }],
];

/** Run commands in ways this policy does not unwrap, or are editors and shells of other kinds. */
const RUNNERS = [
  'strace', 'ltrace', 'valgrind', 'gdb', 'lldb', 'perf', 'bwrap', 'firejail', 'prlimit',
  'parallel', 'sem', 'at', 'batch', 'crontab', 'tmux', 'screen', 'dtach', 'fakeroot', 'proot', 'catchsegv',
  'vi', 'vim', 'nvim', 'ex', 'view', 'ed', 'emacs', 'vipe', 'pwsh', 'powershell', 'deno',
];

function runInterpreter(spec: InterpreterSpec, call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: [...spec.inline, ...(spec.valued ?? []), ...(spec.named ?? [])] });
  if (scan.runtimeWord) return { opaque: `${call.name} has arguments only known at run time` };
  const inline = scan.options.find((o) => spec.inline.includes(o.flag));
  if (inline) return { opaque: `${call.name} ${inline.flag} runs inline code` };
  if (spec.named && hasOption(scan, ...spec.named)) return {};
  const script = call.args[scan.rest];
  if (script && script.text !== '-') return {};
  return spec.readsStdin || script ? { opaque: `${call.name} reads its program from standard input` } : {};
}

/** awk: system(), `| "cmd"`, `cmd | getline` and `print > file` are all in the program text. */
function runAwk(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: ['-f', '--file', '-v', '--assign', '-F', '--field-separator', '-e', '--source', '-i', '--include', '-l', '--load', '-E', '--exec'] });
  if (scan.runtimeWord) return { opaque: `${call.name} has arguments only known at run time` };
  if (hasOption(scan, '-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec')) return { opaque: `${call.name} runs a program from a file` };
  const sources = optionValues(scan, '-e', '--source');
  const programs = sources.length > 0 ? sources : call.args.slice(scan.rest, scan.rest + 1);
  if (programs.some((p) => !p.literal || /system|getline|[|>]/.test(p.text))) return { opaque: `${call.name} program may run commands or write files (system(), pipes, >)` };
  return {};
}

/** GNU sed: the `e` command and `s///e` run commands, `w`/`W` write files; `-i` rewrites the operands. */
const SED_EXEC_OR_WRITE = /(^|[\s;{}!0-9$/,])[ewW]([^A-Za-z]|$)/;

function runSed(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: ['-e', '--expression', '-f', '--file', '-l', '--line-length'] });
  if (scan.runtimeWord) return { opaque: `${call.name} has arguments only known at run time` };
  if (hasOption(scan, '-f', '--file')) return { opaque: `${call.name} runs a script from a file` };
  const expressions = optionValues(scan, '-e', '--expression');
  const scripts = expressions.length > 0 ? expressions : call.args.slice(scan.rest, scan.rest + 1);
  const files = call.args.slice(scan.rest + (expressions.length > 0 ? 0 : 1));
  if (hasOption(scan, '-i', '--in-place')) for (const file of files) call.write(file, 'sed -i');
  if (scripts.some((s) => !s.literal || SED_EXEC_OR_WRITE.test(s.text))) return { opaque: `${call.name} script may run commands or write files (e, w)` };
  return {};
}

const LESS_VALUED = ['-b', '--buffers', '-h', '--max-back-scroll', '-j', '--jump-target', '-k', '--lesskey-file', '-o', '--log-file', '-O', '--LOG-FILE', '-p', '--pattern', '-P', '--prompt', '-t', '--tag', '-T', '--tag-file', '-x', '--tabs', '-y', '--max-forw-scroll', '-z', '--window', '-#', '--shift', '--lesskey-src', '--lesskey-content', '--rscroll', '--header', '--line-num-width', '--status-col-width', '--intr', '--wordwrap'];
/** `+N`, `+G`, `+F`, `+/pattern`: initial less commands that only move or search. */
const LESS_HARMLESS_COMMAND = /^\+\+?(\d*[GgF]?|[/?][^\n\r!|#]*)$/;

/**
 * less reads commands from the terminal, not from the line: `less file` runs nothing. But its
 * `+CMD` initial commands are typed-in commands (`+!rm x` runs rm), a lesskey file (`-k`,
 * `--lesskey-src`) can set `LESSOPEN`, and `-o`/`-O` write a log file.
 */
function runLess(call: CommandCall): CommandFacts {
  const args = call.args;
  const scan = scanOptions(args, { valued: LESS_VALUED });
  const runtime = scan.runtimeWord;
  if (runtime && (mayBeOption(runtime) || runtime.text.startsWith('+'))) return { opaque: `${call.name} has an option only known at run time (${runtime.text}), which may be an initial command (+!cmd)` };
  for (const target of optionValues(scan, '-o', '--log-file', '-O', '--LOG-FILE')) call.write(target, `${call.name} -o`);
  if (hasOption(scan, '-k', '--lesskey-file', '--lesskey-src', '--lesskey-content')) return { opaque: `${call.name} reads a lesskey file, which can make it run commands (LESSOPEN)` };
  // less reads `+CMD` words among its leading options; scanOptions stops at the first one.
  const command = args.find((w) => w.text.startsWith('+') && (!w.literal || !LESS_HARMLESS_COMMAND.test(w.text)));
  return command ? { opaque: `${call.name} ${command.text} runs less commands at start-up, which can run programs (!cmd, |cmd)` } : {};
}

/** Handlers by exact name, and by name pattern for versioned interpreters (`python3.12`). */
export const opaqueHandlers = (): Array<[string, CommandHandler]> => [
  ...RUNNERS.map((name): [string, CommandHandler] => [name, (call) => ({ opaque: `${call.name} runs commands in a way this policy does not unwrap` })]),
  ...['awk', 'gawk', 'mawk', 'nawk'].map((name): [string, CommandHandler] => [name, runAwk]),
  ['sed', runSed],
  ['less', runLess],
];

export const interpreterHandlers = (): Array<[RegExp, CommandHandler]> =>
  INTERPRETERS.map(([pattern, spec]): [RegExp, CommandHandler] => [pattern, (call) => runInterpreter(spec, call)]);
