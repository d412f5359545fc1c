/**
 * Commands that run another command given as their arguments (`nice rm x`, `sudo -u a rm x`,
 * `env FOO=1 rm x`, `timeout 5 rm x`, `setarch x86_64 rm x`, `setpriv rm x`): the wrapped command
 * is judged too. Shell builtins that only run their argument (`command`, `builtin`, `exec`, `time`,
 * `coproc`) are transparent: the wrapped command is all that runs. `sg GROUP CMD` runs CMD with
 * `sh -c`; `start-stop-daemon --start --exec PROG -- ARGS` runs PROG ARGS. Also unwrapped: `runcon`,
 * `pkexec`, `eatmydata`, `faketime`, `cgexec`, `chpst` and its runit links, `xvfb-run`,
 * `dbus-launch`, `flatpak-spawn`, `unshare`, `nsenter`, `systemd-run`, `systemd-inhibit`, `chronic`,
 * `ifne`, `sshpass`, `proxychains`; `script -c CMD` runs CMD with the shell. `su`/`runuser` read
 * `-c CMD` also after the user (`su root -c CMD`).
 */
import type { CommandCall, CommandFacts, CommandHandler } from './command-call.ts';
import { dangerousVariable } from './dangerous-environment.ts';
import { type OptionSpec, hasOption, optionValues, scanOptions, scanPermuted } from './option-scan.ts';
import { type RootChange, type WrapperScan, chrootStart, nsenterStart, unshareStart } from './root-changes.ts';
import { type Word, runtimeWord } from './shell-words.ts';

interface WrapperSpec extends OptionSpec {
  /** Operands before the wrapped command (`timeout DURATION`, `chroot NEWROOT`, `flock FILE`). */
  operands?: number;
  /** One operand first unless the first word is an option (`setarch [ARCH] [options] CMD`). */
  leadingOperand?: boolean;
  /** Options that mean no command follows (`ionice -p PID`, `command -v NAME`). */
  noCommand?: readonly string[];
  transparent?: boolean;
  /** Options naming the directory the wrapped command runs in. */
  chdir?: readonly string[];
  /** Options naming a file the wrapper writes (`time -o FILE`), with how it writes it. */
  writes?: Readonly<Record<string, string>>;
  /** Options whose value is a command line for a shell (`flock -c`, `su -c`). */
  code?: readonly string[];
  /** Options whose value is a program the wrapper starts with arguments of its own (`dbus-run-session --dbus-daemon=BIN`). */
  programs?: readonly string[];
  /** Options whose value is split into the command's first words (`env -S`). */
  splitString?: readonly string[];
  /** The command words are joined and run by `sh -c` (`watch`). */
  joined?: boolean;
  /** Without a command it starts an interactive shell (`sudo -s`, `chroot DIR`, `su`). */
  shellWithoutCommand?: boolean;
  /** The operands are not a command (`su user ARGS` passes them to the user's shell). */
  noInnerCommand?: boolean;
  /** Options may also follow the operands (`flock FILE -c CMD`). */
  optionsAfterOperands?: boolean;
  /** Code options are read anywhere, as getopt permutes (`su root -c CMD`). */
  permutedCode?: boolean;
  /** The leading operand is absent when one of these options is given (`runcon CONTEXT CMD`, `runcon -t TYPE CMD`). */
  noOperandWith?: readonly string[];
  /** The operands are a command only with one of these options (`runuser -u USER CMD`; `runuser USER ARGS` is su's form). */
  commandWith?: readonly string[];
  /** Options whose value is `NAME=VALUE` for the command's environment (`flatpak-spawn --env`, `systemd-run -E`). */
  environment?: readonly string[];
  /** Options that make what runs impossible to read from the line, with why (`chpst -e DIR`, `systemd-run -p ExecStartPre=…`). */
  unjudgeable?: Readonly<Record<string, string>>;
  /** `$NAME` in the command words is expanded by the wrapper, not the shell (`systemd-run`). */
  expandsVariables?: boolean;
  /** The command starts in another root or mount namespace (`chroot DIR`): where its relative paths land. */
  startsIn?: RootChange;
}

const SUDO_VALUED = ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R', '--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--role', '--type', '--other-user', '--command-timeout', '--chroot'];
const SU_VALUED = ['-c', '--command', '--session-command', '-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment', '-u', '--user'];
const SU_CODE = ['-c', '--command', '--session-command'];
/** util-linux setarch: `setarch [ARCH] [options] [CMD]`, and its links named after an architecture (`linux64 CMD`). */
const SETARCH: WrapperSpec = { noCommand: ['--list', '-h', '--help', '-V', '--version'], shellWithoutCommand: true };
const SETARCH_LINKS = ['linux32', 'linux64', 'uname26', 'i386', 'i486', 'i586', 'i686', 'athlon', 'x86_64', 'ia64', 'ppc', 'ppc32', 'ppc64', 'sparc', 'sparc32', 'sparc32bash', 'sparc64', 's390', 's390x', 'parisc', 'parisc32', 'parisc64', 'mips', 'mips32', 'mips64'];
const SETPRIV_VALUED = ['--ruid', '--euid', '--rgid', '--egid', '--reuid', '--regid', '--groups', '--inh-caps', '--ambient-caps', '--bounding-set', '--securebits', '--pdeathsig', '--selinux-label', '--apparmor-profile', '--landlock-access', '--landlock-rule', '--seccomp-filter'];
const UNSHARE_NAMESPACES = ['--mount', '--uts', '--ipc', '--net', '--pid', '--user', '--cgroup', '--time'];
const UNSHARE_OPTIONAL = [...UNSHARE_NAMESPACES, '--kill-child', '--mount-proc'];
/**
 * `unshare --net=FILE` keeps the namespace by bind-mounting it over FILE (which must exist): FILE is changed.
 * `--mount-proc=DIR` mounts proc over DIR (after -R and -w, so relative to them too; shared when `--propagation shared`).
 */
const UNSHARE_MOUNTS = {
  ...Object.fromEntries(UNSHARE_NAMESPACES.map((flag) => [flag, `unshare ${flag} mounts the namespace over it`])),
  '--mount-proc': 'unshare --mount-proc mounts proc over it',
};
/** dbus-daemon's configuration names the services it starts on demand, and where it listens: what runs is in the file. */
const DBUS_CONFIG = (name: string) => ({ '--config-file': `${name} --config-file starts a bus daemon whose configuration (not on the line) can start any program as a service` });
const NSENTER_OPTIONAL = ['-m', '--mount', '-u', '--uts', '-i', '--ipc', '-n', '--net', '-p', '--pid', '-U', '--user', '-C', '--cgroup', '-T', '--time', '-r', '--root', '-w', '--wd'];
const SYSTEMD_PROPERTY = 'a unit property can run commands or set the environment (ExecStartPre=, Environment=)';
const SYSTEMD_RUN_VALUED = [
  '-u', '--unit', '-p', '--property', '--description', '--slice', '-E', '--setenv', '-H', '--host', '-M', '--machine', '--uid', '--gid', '--nice',
  '--working-directory', '--service-type', '--path-property', '--socket-property', '--timer-property', '--on-active', '--on-boot', '--on-startup',
  '--on-unit-active', '--on-unit-inactive', '--on-calendar', '--expand-environment', '-C', '--capsule', '--background', '--json',
];
const CHPST_VALUED = ['-u', '-U', '-b', '-e', '-/', '-C', '-n', '-l', '-L', '-m', '-d', '-o', '-p', '-f', '-c', '-r', '-t'];
const CHPST_ENV_DIR = { '-e': 'chpst -e DIR sets the environment from files the line does not show' };
const SOFTLIMIT_VALUED = ['-m', '-a', '-d', '-o', '-p', '-f', '-c', '-r', '-s', '-t', '-l'];
const NUMACTL_VALUED = ['-i', '--interleave', '-w', '--weighted-interleave', '-p', '--preferred', '-P', '--preferred-many', '-c', '--cpubind', '-N', '--cpunodebind', '-C', '--physcpubind', '-m', '--membind', '-S', '--shm', '-f', '--file', '-o', '--offset', '-L', '--length', '-M', '--shmmode', '-I', '--shmid'];

const WRAPPERS: Record<string, WrapperSpec> = {
  command: { transparent: true, noCommand: ['-v', '-V'] },
  builtin: { transparent: true },
  exec: { transparent: true, valued: ['-a'] },
  time: { transparent: true, valued: ['-f', '--format', '-o', '--output'], writes: { '-o': 'time -o', '--output': 'time -o' } },
  coproc: { transparent: true },
  nohup: {},
  setsid: {},
  unbuffer: {},
  nice: { valued: ['-n', '--adjustment'] },
  ionice: { valued: ['-c', '-n', '--class', '--classdata'], noCommand: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'] },
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  taskset: { operands: 1, noCommand: ['-p', '--pid'] },
  chrt: { valued: ['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline'], operands: 1, noCommand: ['-p', '--pid', '-m', '--max'] },
  sudo: { valued: SUDO_VALUED, assignments: true, chdir: ['-D', '--chdir'], noCommand: ['-l', '-v', '-k', '-K', '-V', '--list', '--validate', '--reset-timestamp', '--remove-timestamp', '--version'], shellWithoutCommand: true },
  doas: { valued: ['-u', '-C'], shellWithoutCommand: true },
  chroot: { valued: ['--userspec', '--groups'], operands: 1, shellWithoutCommand: true, startsIn: chrootStart },
  env: { valued: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'], assignments: true, chdir: ['-C', '--chdir'], splitString: ['-S', '--split-string'] },
  flock: { valued: ['-w', '--timeout', '-E', '--conflict-exit-code', '-c', '--command'], operands: 1, code: ['-c', '--command'], optionsAfterOperands: true },
  watch: { valued: ['-n', '--interval', '-q', '--equexit'], joined: true },
  su: { valued: SU_VALUED, code: SU_CODE, shellWithoutCommand: true, noInnerCommand: true, permutedCode: true },
  runuser: { valued: SU_VALUED, code: SU_CODE, shellWithoutCommand: true, permutedCode: true, commandWith: ['-u', '--user'] },
  setarch: { ...SETARCH, leadingOperand: true },
  ...Object.fromEntries(SETARCH_LINKS.map((name) => [name, SETARCH])),
  setpriv: { valued: SETPRIV_VALUED, noCommand: ['-d', '--dump', '--list-caps', '-h', '--help', '-V', '--version'] },
  numactl: { valued: NUMACTL_VALUED, noCommand: ['-s', '--show', '-H', '--hardware', '-d', '--dump', '-D', '--dump-nodes', '--version'] },
  'ssh-agent': { valued: ['-a', '-E', '-O', '-P', '-t'], noCommand: ['-k', '-l'] },
  'dbus-run-session': { valued: ['--config-file', '--dbus-daemon'], programs: ['--dbus-daemon'], noCommand: ['--help', '--version'], unjudgeable: DBUS_CONFIG('dbus-run-session') },
  runcon: { valued: ['-u', '--user', '-r', '--role', '-t', '--type', '-l', '--range'], operands: 1, noOperandWith: ['-u', '--user', '-r', '--role', '-t', '--type', '-l', '--range'] },
  pkexec: { valued: ['--user'], noCommand: ['--version', '--help'], shellWithoutCommand: true },
  eatmydata: {},
  faketime: { valued: ['-p', '--date-prog'], programs: ['--date-prog'], operands: 1 },
  cgexec: { valued: ['-g'] },
  chpst: { valued: CHPST_VALUED, chdir: ['-C'], unjudgeable: CHPST_ENV_DIR },
  setuidgid: { operands: 1 },
  envuidgid: { operands: 1 },
  softlimit: { valued: SOFTLIMIT_VALUED },
  setlock: { operands: 1 },
  pgrphack: {},
  'xvfb-run': {
    valued: ['-e', '--error-file', '-f', '--auth-file', '-n', '--server-num', '-p', '--xauth-protocol', '-s', '--server-args', '-w', '--wait'],
    writes: { '-e': 'xvfb-run -e', '--error-file': 'xvfb-run -e', '-f': 'xvfb-run -f', '--auth-file': 'xvfb-run -f' },
    noCommand: ['-h', '--help'],
  },
  'dbus-launch': { valued: ['--config-file'], noCommand: ['--version', '--help'], unjudgeable: DBUS_CONFIG('dbus-launch') },
  'flatpak-spawn': {
    valued: ['--forward-fd', '--env', '--unset-env', '--directory', '--sandbox-expose', '--sandbox-expose-ro', '--sandbox-expose-path', '--sandbox-expose-path-ro', '--sandbox-expose-path-try', '--sandbox-expose-path-ro-try', '--sandbox-flag', '--app-path', '--usr-path', '--env-fd'],
    environment: ['--env'],
    chdir: ['--directory'],
    unjudgeable: { '--env-fd': 'flatpak-spawn --env-fd reads the environment from a file descriptor' },
  },
  unshare: {
    valued: ['-R', '--root', '-w', '--wd', '-S', '--setuid', '-G', '--setgid', '--propagation', '--setgroups', '--map-user', '--map-group', '--map-users', '--map-groups', '--monotonic', '--boottime', '--load-interp'],
    optionalValue: UNSHARE_OPTIONAL,
    writes: UNSHARE_MOUNTS,
    unjudgeable: { '--load-interp': 'unshare --load-interp registers an interpreter program that runs whenever a matching binary is started' },
    chdir: ['-w', '--wd'],
    startsIn: unshareStart,
    shellWithoutCommand: true,
    noCommand: ['-h', '--help', '-V', '--version'],
  },
  nsenter: {
    valued: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-W', '--wdns', '-N', '--net-socket', '--user-parent'],
    optionalValue: NSENTER_OPTIONAL,
    startsIn: nsenterStart,
    shellWithoutCommand: true,
    noCommand: ['-h', '--help', '-V', '--version'],
  },
  'systemd-run': {
    valued: SYSTEMD_RUN_VALUED,
    environment: ['-E', '--setenv'],
    chdir: ['--working-directory'],
    unjudgeable: {
      '-p': SYSTEMD_PROPERTY, '--property': SYSTEMD_PROPERTY, '--path-property': SYSTEMD_PROPERTY, '--socket-property': SYSTEMD_PROPERTY, '--timer-property': SYSTEMD_PROPERTY,
      '-S': 'systemd-run --shell starts a shell that reads commands the line does not show', '--shell': 'systemd-run --shell starts a shell that reads commands the line does not show',
    },
    expandsVariables: true,
    noCommand: ['-h', '--help', '--version'],
  },
  'systemd-inhibit': { valued: ['--what', '--who', '--why', '--mode'], noCommand: ['--list', '-h', '--help', '--version'] },
  chronic: {},
  ifne: {},
  sshpass: { valued: ['-f', '-d', '-p', '-P'] },
  proxychains: { valued: ['-f'] },
  proxychains4: { valued: ['-f'] },
};

const joinWords = (words: readonly Word[]): Word => ({ text: words.map((w) => w.text).join(' '), literal: words.every((w) => w.literal), pattern: false });

/** Options before the operands and, for wrappers that allow it, after them; `rest` is where the command starts. */
function scanWrapper(spec: WrapperSpec, args: readonly Word[]): WrapperScan {
  const [first] = args;
  if (spec.leadingOperand && first?.literal && !first.text.startsWith('-')) {
    const scan = scanWrapper({ ...spec, leadingOperand: false }, args.slice(1));
    return { ...scan, operands: [first, ...scan.operands], rest: scan.rest + 1 };
  }
  const head = scanOptions(args, spec);
  const count = spec.noOperandWith && hasOption(head, ...spec.noOperandWith) ? 0 : (spec.operands ?? 0);
  const operandsEnd = Math.min(args.length, head.rest + count);
  const operands = args.slice(head.rest, operandsEnd);
  if (!spec.optionsAfterOperands || head.runtimeWord) return { ...head, operands, rest: operandsEnd };
  const tail = scanOptions(args.slice(operandsEnd), spec);
  return { ...tail, operands, options: [...head.options, ...tail.options], assignments: [...head.assignments, ...tail.assignments], rest: operandsEnd + tail.rest };
}

function runWrapper(spec: WrapperSpec, call: CommandCall): CommandFacts {
  const scan = scanWrapper(spec, call.args);
  if (scan.runtimeWord) {
    call.unresolved(`${call.name} has an option only known at run time (${scan.runtimeWord.text}), so the command it runs is unknown`);
    return {};
  }
  if (spec.noCommand && hasOption(scan, ...spec.noCommand)) return {};
  for (const assignment of [...scan.assignments, ...optionValues(scan, ...(spec.environment ?? []))]) {
    if (!assignment.literal) call.unresolved(`${call.name} sets a variable only known at run time (${assignment.text})`);
    const why = dangerousVariable(assignment.text.includes('=') ? assignment.text.slice(0, assignment.text.indexOf('=')) : assignment.text);
    if (why) call.unresolved(why);
  }
  for (const option of scan.options) {
    const why = spec.unjudgeable?.[option.flag];
    if (why) call.unresolved(why);
  }
  for (const directory of optionValues(scan, ...(spec.chdir ?? []))) call.chdir(directory);
  spec.startsIn?.(call, scan);
  for (const option of scan.options) {
    const how = spec.writes?.[option.flag];
    if (option.value && how) call.write(option.value, how);
  }
  const inner = call.args.slice(scan.rest);
  const split = optionValues(scan, ...(spec.splitString ?? []));
  const code = optionValues(spec.permutedCode ? scanPermuted(call.args, spec) : scan, ...(spec.code ?? []));
  for (const line of code) call.runCode(line, `${call.name} -c`);
  for (const option of scan.options) {
    if (option.value && spec.programs?.includes(option.flag)) call.run([option.value, runtimeWord(`<${call.name} arguments>`)], `${call.name} ${option.flag}`);
  }
  if (split.length > 0) {
    call.runCode(joinWords([...split, ...inner]), `${call.name} -S`);
    return {};
  }
  const noInner = spec.noInnerCommand || (spec.commandWith !== undefined && !hasOption(scan, ...spec.commandWith));
  if (inner.length === 0 || noInner) {
    if (code.length === 0 && spec.shellWithoutCommand) call.unresolved(`${call.name} without a command starts a shell that reads commands the line does not show`);
    // Nothing wrapped: a transparent builtin is then itself the command (`exec >log`, `command -v x`).
    return {};
  }
  if (spec.expandsVariables && inner.some((w) => w.text.includes('$')) && !optionValues(scan, '--expand-environment').some((v) => /^(no|false|0|off)$/.test(v.text))) {
    call.unresolved(`${call.name} expands $NAME in the command's words itself, with values the line does not show`);
  }
  if (spec.joined && !hasOption(scan, '-x', '--exec')) call.runCode(joinWords(inner), call.name);
  else call.run(inner, call.name);
  return spec.transparent ? { transparent: true } : {};
}

/** `busybox rm x`, `toybox rm x`: the applet is the program. */
function runMultiCall(call: CommandCall): CommandFacts {
  const [applet] = call.args;
  if (applet && (!applet.literal || !applet.text.startsWith('-'))) call.run(call.args, call.name);
  return {};
}

/** `sg [-] GROUP [-c] COMMAND` runs COMMAND with `sh -c`; without one, and `newgrp`, it starts a shell. */
function runSg(call: CommandCall): CommandFacts {
  const [first, ...others] = call.args;
  const args = first?.literal && (first.text === '-' || first.text === '-l') ? others : call.args;
  const [, flag, ...rest] = args;
  const command = flag?.literal && flag.text === '-c' ? rest : args.slice(1);
  if (call.name === 'newgrp' || command.length === 0) call.unresolved(`${call.name} without a command starts a shell that reads commands the line does not show`);
  else call.runCode(joinWords(command), call.name);
  return {};
}

const START_STOP_VALUED = [
  '-x', '--exec', '-a', '--startas', '-p', '--pidfile', '-u', '--user', '-n', '--name', '-s', '--signal', '-r', '--chroot', '-d', '--chdir', '-c', '--chuid',
  '-g', '--group', '-N', '--nicelevel', '-P', '--procsched', '-I', '--iosched', '-k', '--umask', '-R', '--retry', '-O', '--output', '--ppid', '--notify-timeout',
];

/** `start-stop-daemon --start --exec PROG [--startas PROG] -- ARGS` runs PROG ARGS; options may stand anywhere before `--`. */
function runStartStopDaemon(call: CommandCall): CommandFacts {
  const scan = scanPermuted(call.args, { valued: START_STOP_VALUED, flags: ['--start'] });
  for (const word of scan.runtimeWords) call.unresolved(`${call.name} has an argument only known at run time (${word.text}), which may name the program it starts`);
  for (const target of optionValues(scan, '-O', '--output')) call.write(target, `${call.name} --output`);
  const onlyStops = !hasOption(scan, '-S', '--start') && hasOption(scan, '-K', '--stop', '-T', '--status', '-H', '--help', '-V', '--version');
  const program = optionValues(scan, '-a', '--startas')[0] ?? optionValues(scan, '-x', '--exec')[0];
  if (program && !onlyStops) call.run([program, ...scan.operands], call.name);
  return {};
}

const SCRIPT_VALUED = ['-c', '--command', '-E', '--echo', '-B', '--log-io', '-I', '--log-in', '-O', '--log-out', '-T', '--log-timing', '-m', '--logging-format', '-o', '--output-limit'];
const SCRIPT_LOGS = ['-B', '--log-io', '-I', '--log-in', '-O', '--log-out', '-T', '--log-timing', '-t', '--timing'];

/**
 * util-linux `script [options] [FILE]`: `-c CMD` runs CMD with the shell; without it, it starts a
 * shell that reads commands. It writes FILE (`typescript` by default) and its logs. Words after FILE
 * are the command in the BSD form (`script FILE CMD ARGS`).
 */
function runScript(call: CommandCall): CommandFacts {
  const scan = scanPermuted(call.args, { valued: SCRIPT_VALUED, optionalValue: ['-t', '--timing'], flags: ['--force', '--flush', '--return', '--append', '--quiet'] });
  for (const word of scan.runtimeWords) call.unresolved(`script has an argument only known at run time (${word.text}), which may be -c CMD`);
  for (const target of optionValues(scan, ...SCRIPT_LOGS)) call.write(target, 'script (log)');
  const [file, ...command] = scan.operands;
  if (file) call.write(file, 'script (typescript)');
  const code = optionValues(scan, '-c', '--command');
  for (const line of code) call.runCode(line, 'script -c');
  if (command.length > 0) call.run(command, 'script');
  else if (code.length === 0) call.unresolved('script without -c starts a shell that reads commands the line does not show');
  return {};
}

/** runit's `envdir DIR CMD` sets the environment from the files in DIR. */
function runEnvdir(call: CommandCall): CommandFacts {
  call.unresolved(`${call.name} sets the environment from files the line does not show`);
  if (call.args.length > 1) call.run(call.args.slice(1), call.name);
  return {};
}

export const wrapperHandlers = (): Array<[string, CommandHandler]> => [
  ...Object.entries(WRAPPERS).map(([name, spec]): [string, CommandHandler] => [name, (call) => runWrapper(spec, call)]),
  ['busybox', runMultiCall],
  ['toybox', runMultiCall],
  ['sg', runSg],
  ['newgrp', runSg],
  ['start-stop-daemon', runStartStopDaemon],
  ['script', runScript],
  ['envdir', runEnvdir],
];
