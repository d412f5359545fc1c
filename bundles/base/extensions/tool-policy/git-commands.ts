/**
 * git runs programs named in its configuration and options: `git -c alias.x='!rm …' x`,
 * `-c core.sshCommand=…`, `--exec-path=…`, `--upload-pack=…`, `ext::` remotes, `--template` hooks,
 * `git config core.pager …` for later calls. Those are unresolved (an `allow: git *` rule cannot
 * allow them, nor difftool/mergetool); `rebase --exec`, `submodule foreach`, `bisect run` and
 * `filter-branch --*-filter` run commands that are judged;
 * `--output FILE`, `-C DIR`, `--git-dir DIR` and `--work-tree DIR` are writes, and so are the
 * places git creates: `init DIR`, `clone URL DIR`, `archive -o`, `format-patch -o` /
 * `--output-directory`, `bundle create FILE`, `worktree add DIR`. `grep -O<cmd>` runs <cmd> (judged);
 * `grep -O` alone, `send-email --sendmail-cmd`, `instaweb --httpd` / `--browser` run programs
 * named elsewhere (unresolved).
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { type Word, literalWord } from './shell-words.ts';

/** Configuration keys that cannot make git run a program; every other key is treated as able to. */
const HARMLESS_KEY =
  /^(user\.(name|email)|color\.[a-z.]+|advice\.[a-z]+|core\.(quotepath|autocrlf|safecrlf|filemode|ignorecase|abbrev|eol)|log\.[a-z]+|format\.pretty|init\.defaultbranch|pull\.(rebase|ff)|push\.(default|autosetupremote)|merge\.(ff|conflictstyle)|rebase\.(autosquash|autostash)|diff\.(noprefix|renames|algorithm|colormoved|mnemonicprefix)|status\.[a-z]+|column\.[a-z]+|i18n\.[a-z]+|commit\.verbose|branch\.sort|tag\.sort|versionsort\.[a-z]+)$/i;
/** Global options whose value is the next word (unless given as `--opt=value`). */
const GLOBAL_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env']);
const GLOBAL_WRITES = new Set(['-C', '--git-dir', '--work-tree']);
/** Options of any subcommand that name a program to run. */
const PROGRAM_OPTION = /^--(upload-pack|receive-pack|exec|extcmd|tool|gpg-program|ssh-command|sendmail-cmd|httpd|browser)(=|$)/;
/** Options of `git clone` whose value is the next word (so that its positionals are found). */
const CLONE_VALUED = new Set(['-b', '--branch', '-o', '--origin', '-u', '--upload-pack', '--depth', '--reference', '--reference-if-able', '-c', '--config', '--template', '--separate-git-dir', '--filter', '-j', '--jobs', '--shallow-since', '--shallow-exclude', '--server-option', '--bundle-uri']);
/** Options of `git init` whose value is the next word. */
const INIT_VALUED = new Set(['--template', '--separate-git-dir', '--object-format', '--ref-format', '-b', '--initial-branch', '--shared']);
const TAKES_UPLOAD_PACK = new Set(['clone', 'fetch', 'pull', 'ls-remote', 'archive']);
/** Values computed at run time are fine here: a commit message cannot carry an option. */
const MESSAGE_OPTION = /^(-m|--message|-F|--file)$/;
const READ_ONLY_CONFIG = /^(--get|--get-all|--get-regexp|--get-urlmatch|-l|--list|--show-origin|--show-scope|get|list)$/;

function checkKey(call: CommandCall, setting: Word | undefined, how: string): void {
  const key = setting?.text.split('=')[0] ?? '';
  if (!setting?.literal || !HARMLESS_KEY.test(key)) call.unresolved(`${how} ${key || setting?.text || ''} can make git run a program (alias.*=!…, core.sshCommand, core.pager, …)`);
}

function checkSubcommandArgs(call: CommandCall, subcommand: string, args: Word[]): void {
  args.forEach((word, k) => {
    if (!word.literal) {
      if (!MESSAGE_OPTION.test(args[k - 1]?.text ?? '') && !/^--(message|file)=/.test(word.text)) call.unresolved(`git ${subcommand} has an argument only known at run time (${word.text}), which may be an option that runs a program`);
      return;
    }
    const text = word.text;
    const rebaseExec = subcommand === 'rebase' && /^--exec(=|$)/.test(text);
    if ((PROGRAM_OPTION.test(text) && !rebaseExec) || (text === '-u' && TAKES_UPLOAD_PACK.has(subcommand))) call.unresolved(`git ${subcommand} ${text} runs a program named on the line`);
    if (/^(ext|fd)::/.test(text)) call.unresolved(`the remote ${text} makes git run a command`);
    if (/^--template(=|$)/.test(text)) call.unresolved('git --template installs hooks that run later');
    if (subcommand === 'clone' && (text === '-c' || text === '--config')) checkKey(call, args[k + 1], 'git clone -c');
    if (subcommand === 'clone' && text.startsWith('--config=')) checkKey(call, literalWord(text.slice(9)), 'git clone --config');
    if (text === '--output' || text === '-o' || text === '--output-directory') {
      const target = args[k + 1];
      if (target && (text !== '-o' || subcommand === 'format-patch' || subcommand === 'archive')) call.write(target, `git ${subcommand} ${text}`);
    }
    if (text.startsWith('--output=')) call.write(literalWord(text.slice(9)), `git ${subcommand} --output`);
    if (text.startsWith('--output-directory=')) call.write(literalWord(text.slice(19)), `git ${subcommand} --output-directory`);
    if (subcommand === 'grep') checkGrepPager(call, text);
  });
  const [first, second] = positionals(args, subcommand === 'clone' ? CLONE_VALUED : INIT_VALUED);
  if (subcommand === 'init' && first) call.write(first, 'git init');
  if (subcommand === 'clone' && second) call.write(second, 'git clone');
  if (subcommand === 'bundle' && first?.text === 'create' && second) call.write(second, 'git bundle create');
  if (subcommand === 'worktree' && first?.text === 'add' && second) call.write(second, 'git worktree add');
}

/** `git grep -O<cmd>` / `--open-files-in-pager=<cmd>` runs <cmd> on the matching files; without one, the configured pager. */
function checkGrepPager(call: CommandCall, text: string): void {
  const long = /^--open-files-in-pager(=(.*))?$/.exec(text);
  // A cluster of short options ends with -O and its value: -nO'cmd'.
  const short = text.startsWith('--') ? null : /^-[A-Za-z]*O(.*)$/.exec(text);
  if (!long && !short) return;
  const program = long ? long[2] : short?.[1];
  if (program) call.runCode(literalWord(program), 'git grep -O');
  else call.unresolved('git grep -O opens the files in the pager git is configured with');
}

/** The words that are not options (nor an option's value), in order. */
function positionals(args: Word[], valued: ReadonlySet<string>): Word[] {
  const found: Word[] = [];
  for (let k = 0; k < args.length; k++) {
    const word = args[k];
    if (!word) break;
    if (word.text === '--') return [...found, ...args.slice(k + 1)];
    if (word.text.startsWith('-')) {
      if (valued.has(word.text)) k++;
      continue;
    }
    found.push(word);
  }
  return found;
}

/** `git config KEY VALUE` stores a setting later git calls act on. */
function checkConfig(call: CommandCall, args: Word[]): void {
  if (args.some((w) => READ_ONLY_CONFIG.test(w.text))) return;
  const positional = args.filter((w) => !w.text.startsWith('-') && w.text !== 'set');
  const setting = args.some((w) => /^(--add|--replace-all|set)$/.test(w.text)) || positional.length >= 2;
  if (setting) checkKey(call, positional[0], 'git config');
}

function runGit(call: CommandCall): CommandFacts {
  const args = call.args;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i];
    if (!word) break;
    if (!word.literal) {
      call.unresolved(`git has an option only known at run time (${word.text})`);
      return {};
    }
    const [flag = '', inlineValue] = word.text.startsWith('--') && word.text.includes('=') ? [word.text.slice(0, word.text.indexOf('=')), word.text.slice(word.text.indexOf('=') + 1)] : [word.text];
    if (!flag.startsWith('-')) break;
    const value = inlineValue !== undefined ? literalWord(inlineValue) : GLOBAL_VALUED.has(flag) ? args[++i] : undefined;
    if (flag === '-c') checkKey(call, value, 'git -c');
    if (flag === '--config-env') call.unresolved('git --config-env sets configuration from the environment, which can make git run a program');
    if (flag === '--exec-path' && value) call.unresolved('git --exec-path= runs git commands from another directory');
    if (GLOBAL_WRITES.has(flag) && value) call.write(value, `git ${flag}`);
  }
  const subcommand = args[i]?.text ?? '';
  const rest = args.slice(i + 1);
  checkSubcommandArgs(call, subcommand, rest);
  if (subcommand === 'config') checkConfig(call, rest);
  if (subcommand === 'rebase') {
    rest.forEach((w, k) => {
      const next = rest[k + 1];
      if ((w.text === '-x' || w.text === '--exec') && next) call.runCode(next, 'git rebase --exec');
      if (w.text.startsWith('--exec=')) call.runCode({ ...w, text: w.text.slice(7) }, 'git rebase --exec');
    });
  }
  if (subcommand === 'submodule' && rest.some((w) => w.text === 'foreach')) {
    const code = rest.slice(rest.findIndex((w) => w.text === 'foreach') + 1).filter((w) => w.text !== '--recursive');
    if (code.length > 0) call.runCode({ text: code.map((w) => w.text).join(' '), literal: code.every((w) => w.literal), pattern: false }, 'git submodule foreach');
  }
  if (subcommand === 'bisect' && rest[0]?.text === 'run') call.run(rest.slice(1), 'git bisect run');
  if (subcommand === 'filter-branch') {
    rest.forEach((w, k) => {
      const next = rest[k + 1];
      if (/^--[a-z-]+-filter$/.test(w.text) && next) call.runCode(next, `git filter-branch ${w.text}`);
    });
  }
  if (subcommand === 'difftool' || subcommand === 'mergetool') call.unresolved(`git ${subcommand} runs a tool program named in options or configuration`);
  return {};
}

export const gitHandlers = (): Array<[string, CommandHandler]> => [['git', runGit]];
