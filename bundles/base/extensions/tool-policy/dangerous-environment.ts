/**
 * Environment variables that change which program runs or make a program run other code
 * (`PATH=. git status` runs ./git; `GIT_SSH_COMMAND`, `LD_PRELOAD`, `BASH_ENV`, `NODE_OPTIONS`…).
 * Setting one — as a prefix, with `export`/`env`/`sudo`, or in a tool call's `env` — makes the
 * line impossible to judge from its text.
 */
const NAMES = new Set([
  'PATH', 'IFS', 'ENV', 'BASH_ENV', 'CDPATH', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'GLOBIGNORE',
  'PAGER', 'MANPAGER', 'GIT_PAGER', 'EDITOR', 'VISUAL', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'BROWSER',
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_TEMPLATE_DIR',
  'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_PROXY_COMMAND', 'GIT_EXTERNAL_DIFF', 'GIT_ALLOW_PROTOCOL',
  'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PYTHONINSPECT',
  'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB', 'LESSOPEN', 'LESSCLOSE', 'TAR_OPTIONS', 'ZDOTDIR',
  // Options or programs of commands that run commands: split --filter runs $SHELL, zip -TT (zip reads $ZIPOPT, else $ZIP), man -P, rsync -e.
  'SHELL', 'ZIPOPT', 'ZIP', 'MANOPT', 'RSYNC_RSH',
  // rsync reaches a daemon through `$RSYNC_SHELL -c "$RSYNC_CONNECT_PROG"` instead of a socket when set.
  'RSYNC_CONNECT_PROG', 'RSYNC_SHELL',
  // The FIDO middleware library ssh, ssh-keygen and ssh-add load; the ssh program autossh runs.
  'SSH_SK_PROVIDER', 'AUTOSSH_PATH',
  // less's options (+!cmd) and lesskey files, which can set LESSOPEN.
  'LESS', 'LESSKEY', 'LESSKEYIN', 'LESSKEY_CONTENT', 'LESSKEYIN_SYSTEM', 'LESSKEY_SYSTEM', 'LESSEDIT',
]);
const PREFIXES = ['LD_', 'DYLD_', 'BASH_FUNC_', 'GIT_CONFIG'];

/** Why setting `name` makes a command line unjudgeable, or undefined when it does not. */
export function dangerousVariable(name: string): string | undefined {
  if (NAMES.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix))) return `setting ${name} changes which program runs or what it runs`;
  return undefined;
}
