/**
 * One simple command, from its words: the program it starts (`/bin/rm`, `\rm`, `"rm"`, `r''m` are
 * all `rm`), what its arguments make it do (wrappers, code runners, interpreters, git, writes), and
 * the record the policy judges. A command word only known at run time (`$x`, `$(echo rm)`,
 * `rm${IFS}-f`) or a pattern (`/???/r?`) cannot be judged.
 */
import type { CommandCall, CommandHandler } from './command-call.ts';
import { codeRunnerHandlers } from './code-runners.ts';
import { commandOptionHandlers } from './command-options.ts';
import { wrapperHandlers } from './command-wrappers.ts';
import { fileEffectHandlers } from './file-effects.ts';
import { findAndXargsHandlers } from './find-and-xargs.ts';
import { gitHandlers } from './git-commands.ts';
import { moshHandlers } from './mosh-command.ts';
import { moshServerHandlers } from './mosh-server-command.ts';
import { interpreterHandlers, opaqueHandlers } from './opaque-programs.ts';
import type { AnalysisSink, Scope } from './shell-analysis.ts';
import { sshHandlers } from './ssh-command.ts';
import { sshFileTransferHandlers } from './ssh-file-transfers.ts';
import { sshfsHandlers } from './sshfs-command.ts';
import type { Word } from './shell-words.ts';
import { zipHandlers } from './zip-command.ts';

const HANDLERS = new Map<string, CommandHandler>([
  ...wrapperHandlers(),
  ...codeRunnerHandlers(),
  ...findAndXargsHandlers(),
  ...fileEffectHandlers(),
  ...gitHandlers(),
  ...commandOptionHandlers(),
  ...zipHandlers(),
  ...sshHandlers(),
  ...sshFileTransferHandlers(),
  ...sshfsHandlers(),
  ...moshHandlers(),
  ...moshServerHandlers(),
  ...opaqueHandlers(),
]);
const PATTERN_HANDLERS = interpreterHandlers();
/** `nice nice nice … rm` is followed this deep, then left unresolved. */
const MAX_WRAPPING = 16;

function handlerFor(name: string): CommandHandler | undefined {
  return HANDLERS.get(name) ?? PATTERN_HANDLERS.find(([pattern]) => pattern.test(name))?.[1];
}

/** The program a command word starts: its basename when written as a path (`/usr/bin/rm`, `./rm`). */
export function programName(word: string): string {
  const trimmed = word.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

export function resolveCommand(words: readonly Word[], scope: Scope, sink: AnalysisSink): void {
  const [head, ...args] = words;
  if (!head) return;
  const written = words.map((w) => w.text).join(' ');
  if (!head.literal) return sink.unresolved(written, 'a variable or substitution in command position decides the program when the line runs', scope);
  if (head.pattern) return sink.unresolved(written, 'a glob or brace pattern in command position can expand to any program', scope);
  if (scope.depth > MAX_WRAPPING) return sink.unresolved(written, `commands wrapped more than ${MAX_WRAPPING} deep are not followed`, scope);
  const name = programName(head.text);
  const inner = (label: string): Scope => ({ via: [...scope.via, label], stdin: scope.stdin, depth: scope.depth + 1 });
  const call: CommandCall = {
    name,
    args,
    scope,
    run: (innerWords, label) => resolveCommand(innerWords, inner(label), sink),
    runCode: (code, label) => sink.nested(code.text, code.literal, label, scope),
    write: (target, how) => sink.write(target, how, written, scope),
    chdir: (target) => sink.result.directories.push(target?.literal && !target.pattern ? target.text : undefined),
    unresolved: (why) => sink.unresolved(written, why, scope),
  };
  const facts = handlerFor(name)?.(call) ?? {};
  if (facts.transparent) return;
  const text = [name, ...args.map((w) => w.text)].join(' ');
  sink.result.commands.push({ name, text, written, via: scope.via, ...(facts.opaque ? { opaque: facts.opaque } : {}), ...(facts.remotes ? { remotes: facts.remotes } : {}) });
}
