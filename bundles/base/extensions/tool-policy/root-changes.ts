/**
 * Wrappers that start their command in another root or mount namespace, where the command's
 * relative paths land somewhere else than the line's directory: coreutils `chroot NEWROOT` and
 * `unshare -R DIR` start it in `/` of the new root (NEWROOT here) unless `--skip-chdir` / `-w`;
 * `nsenter -m` (`--mount`, `-a`) starts it in `/` of the target's mount namespace, a place the
 * line does not show, unless `-w DIR` names one (checked with util-linux 2.38 and coreutils 9.1).
 */
import type { CommandCall } from './command-call.ts';
import { type ScannedOptions, hasOption, optionValues } from './option-scan.ts';
import type { Word } from './shell-words.ts';

export interface WrapperScan extends ScannedOptions {
  /** The operands before the wrapped command (`chroot NEWROOT`, `timeout DURATION`). */
  operands: Word[];
}

export type RootChange = (call: CommandCall, scan: WrapperScan) => void;

export const chrootStart: RootChange = (call, scan) => {
  const [root] = scan.operands;
  if (root && !hasOption(scan, '--skip-chdir')) call.chdir(root);
};

export const unshareStart: RootChange = (call, scan) => {
  const [root] = optionValues(scan, '-R', '--root');
  // -w is then read inside the new root: where that is here is not known.
  if (root) call.chdir(hasOption(scan, '-w', '--wd') ? undefined : root);
};

export const nsenterStart: RootChange = (call, scan) => {
  const wd = scan.options.filter((o) => o.flag === '-w' || o.flag === '--wd');
  // `-w` without a directory is the target process's working directory.
  for (const option of wd) call.chdir(option.value);
  if (wd.length === 0 && hasOption(scan, '-m', '--mount', '-a', '--all')) call.chdir(undefined);
};
