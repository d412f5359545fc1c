/**
 * Commands whose arguments name files they write (`tee F`, `dd of=F`, `cp … DEST`, `mv SRC… DEST`,
 * `sort -o F`, `truncate F`), files they delete (`unlink`, `rmdir`, `shred`: also judged as `rm` with
 * the same operands, so a `rm *` deny rule catches them, and opaque), and directory changes
 * (`cd`, `pushd`, `popd`) that move where relative writes land.
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { hasOption, optionValues, scanOptions } from './option-scan.ts';
import { literalWord } from './shell-words.ts';

const DELETES = 'deletes or destroys files';
const COPY_VALUED = ['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group'];

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
  const scan = scanOptions(call.args, { valued: COPY_VALUED });
  const operands = call.args.slice(scan.rest);
  const targets = optionValues(scan, '-t', '--target-directory');
  const sources = targets.length > 0 ? operands : operands.slice(0, -1);
  const destination = targets.length > 0 || operands.length < 2 ? targets : operands.slice(-1);
  for (const target of destination) call.write(target, call.name);
  if (call.name === 'mv') for (const source of sources) call.write(source, 'mv (source)');
  if (call.name === 'install' && hasOption(scan, '-d', '--directory')) for (const dir of operands) call.write(dir, 'install -d');
  return {};
}

function runSort(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: ['-o', '--output', '-k', '--key', '-t', '--field-separator', '-T', '--temporary-directory', '-S', '--buffer-size', '--parallel', '--batch-size', '--files0-from', '--compress-program'] });
  for (const target of optionValues(scan, '-o', '--output')) call.write(target, 'sort -o');
  if (hasOption(scan, '--compress-program')) return { opaque: 'sort --compress-program runs a program' };
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
  ['truncate', runTruncate],
  ['unlink', deletes([], [])],
  ['rmdir', deletes([], ['-r'])],
  ['shred', deletes(['-n', '--iterations', '-s', '--size', '--random-source'], [])],
  ['cd', runCd],
  ['pushd', runCd],
  ['popd', runPopd],
];
