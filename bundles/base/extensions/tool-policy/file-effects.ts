/**
 * Commands whose arguments name files they write (`tee F`, `dd of=F`, `cp … DEST`, `mv SRC… DEST`,
 * `sort -o F`, `truncate F`), files they delete (`unlink`, `rmdir`, `shred`: also judged as `rm` with
 * the same operands, so a `rm *` deny rule catches them, and opaque), and directory changes
 * (`cd`, `pushd`, `popd`) that move where relative writes land. cp, mv, install, ln and sort read
 * options after their operands too (GNU getopt permutes: `cp a /etc/x -v`, `sort f --compress-program=P`),
 * so a word only known at run time where they read options (`cp "$f" d`, which may be `-t/etc`)
 * cannot be judged. `install -s --strip-program=PROG` and `sort --compress-program=PROG` run PROG
 * (judged). `sponge F` writes F.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { type PermutedOptions, hasOption, optionValues, scanOptions, scanPermuted } from './option-scan.ts';
import { literalWord, runtimeWord } from './shell-words.ts';

const DELETES = 'deletes or destroys files';
const COPY_VALUED = ['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group', '--strip-program'];
const SORT_VALUED = ['-o', '--output', '-k', '--key', '-t', '--field-separator', '-T', '--temporary-directory', '-S', '--buffer-size', '--parallel', '--batch-size', '--files0-from', '--compress-program', '--random-source', '--sort'];

/** Permuted options, with words only known at run time where an option may stand unresolved. */
function scanAnywhere(call: CommandCall, valued: readonly string[], what: string): PermutedOptions {
  const scan = scanPermuted(call.args, { valued });
  for (const word of scan.runtimeWords) call.unresolved(`${call.name} has an argument only known at run time (${word.text}), which may be an option that ${what}`);
  return scan;
}

function runTee(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, {});
  for (const file of call.args.slice(scan.rest)) call.write(file, 'tee');
  return {};
}

function runDd(call: CommandCall): CommandFacts {
  for (const arg of call.args) {
    if (arg.text.startsWith('of=')) call.write({ ...arg, text: arg.text.slice(3) }, 'dd of=');
  }
  return {};
}

/** cp/mv/install/ln: the destination is `-t DIR` or the last operand; `mv` also removes its sources. */
function runCopy(call: CommandCall): CommandFacts {
  const scan = scanAnywhere(call, COPY_VALUED, 'changes where it writes (-t DIR)');
  const operands = scan.operands;
  const targets = optionValues(scan, '-t', '--target-directory');
  const sources = targets.length > 0 ? operands : operands.slice(0, -1);
  const destination = targets.length > 0 || operands.length < 2 ? targets : operands.slice(-1);
  for (const target of destination) call.write(target, call.name);
  if (call.name === 'mv') for (const source of sources) call.write(source, 'mv (source)');
  if (call.name === 'install' && hasOption(scan, '-d', '--directory')) for (const dir of operands) call.write(dir, 'install -d');
  // install -s runs the strip program on each installed file.
  if (call.name === 'install') for (const program of optionValues(scan, '--strip-program')) call.run([program, runtimeWord('<installed file>')], 'install --strip-program');
  return {};
}

/** sort runs `PROG` to compress and `PROG -d` to decompress its temporary files. */
function runSort(call: CommandCall): CommandFacts {
  const scan = scanAnywhere(call, SORT_VALUED, 'runs a program (--compress-program) or writes a file (-o)');
  for (const target of optionValues(scan, '-o', '--output')) call.write(target, 'sort -o');
  for (const program of optionValues(scan, '--compress-program')) {
    call.run([program], 'sort --compress-program');
    call.run([program, literalWord('-d')], 'sort --compress-program');
  }
  return {};
}

function runSponge(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, {});
  for (const file of call.args.slice(scan.rest)) call.write(file, 'sponge');
  return {};
}

function runTruncate(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: ['-s', '--size', '-r', '--reference'] });
  for (const file of call.args.slice(scan.rest)) call.write(file, 'truncate');
  return { opaque: DELETES };
}

/** A deleting command, also judged as `rm` (with `extra` options) on the same operands. */
const deletes =
  (valued: string[], extra: string[]): CommandHandler =>
  (call) => {
    const scan = scanOptions(call.args, { valued });
    call.run([literalWord('rm'), ...extra.map(literalWord), ...call.args.slice(scan.rest)], call.name);
    return { opaque: DELETES };
  };

function runCd(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, {});
  const target = call.args[scan.rest];
  if (!target) call.chdir(literalWord('~'));
  // `cd -`, `pushd +1`: a directory from the shell's history.
  else call.chdir(target.literal && /^([-+]\d*)$/.test(target.text) ? undefined : target);
  return {};
}

function runPopd(call: CommandCall): CommandFacts {
  call.chdir(undefined);
  return {};
}

export const fileEffectHandlers = (): Array<[string, CommandHandler]> => [
  ['tee', runTee],
  ['dd', runDd],
  ...['cp', 'mv', 'install', 'ln'].map((name): [string, CommandHandler] => [name, runCopy]),
  ['sort', runSort],
  ['sponge', runSponge],
  ['truncate', runTruncate],
  ['unlink', deletes([], [])],
  ['rmdir', deletes([], ['-r'])],
  ['shred', deletes(['-n', '--iterations', '-s', '--size', '--random-source'], [])],
  ['cd', runCd],
  ['pushd', runCd],
  ['popd', runPopd],
];
