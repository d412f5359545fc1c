/**
 * What a shell command line would do, read from its syntax tree rather than its characters: every
 * program it would start (also inside `sh -c`, `eval`, substitutions and wrappers such as `xargs`,
 * `find -exec`, `sudo`), every file it would write (redirections, `tee`, `dd of=`, …), and every part
 * whose effect cannot be known before it runs (a variable in command position, `eval "$x"`, …).
 */
import type { ShellParser } from './shell-parser.ts';
import { walkStatement } from './shell-tree-walk.ts';
import type { Word } from './shell-words.ts';

export interface ShellCommand {
  /** The program: the command word's basename (`/bin/rm` → `rm`). */
  name: string;
  /** The words with the program name first (`rm -rf /`): what deny and ask patterns see. */
  text: string;
  /** The words with the command word as written (`/bin/rm -rf /`): what allow patterns see. */
  written: string;
  /** Where it was found, outermost first (`sh -c`, `xargs`); empty at the top level. */
  via: string[];
  /** Why its effect cannot be read from the line (inline interpreter code, a deleting command): only an allow rule naming the program allows it. */
  opaque?: string;
  /** The operands on another machine it copies files to or from: only an allow pattern that spells each of them allows it. */
  remotes?: string[];
}

export interface ShellWrite {
  /** The target as written (`~/.bashrc`, `out/log.txt`, `/tmp/x`). */
  target: string;
  /** How it is written: `'>' redirection`, `tee`, `dd of=`. */
  how: string;
  via: string[];
}

export interface ShellUnresolved {
  /** The part of the line that cannot be judged. */
  fragment: string;
  why: string;
  via: string[];
}

export interface ShellAnalysis {
  commands: ShellCommand[];
  writes: ShellWrite[];
  unresolved: ShellUnresolved[];
  /** Directories the line may change into (`cd x`, `env -C x`); undefined when only known at run time. */
  directories: Array<string | undefined>;
}

/** Where a command's standard input comes from: code fed to a shell there is code the line runs. */
export type Stdin = { kind: 'inherited' | 'pipe' | 'file' } | { kind: 'text'; text: string; literal: boolean };

export interface Scope {
  via: string[];
  stdin: Stdin;
  depth: number;
}

export const INHERITED: Stdin = { kind: 'inherited' };
/** `sh -c "sh -c \"…\""` nesting beyond this is not followed (and so cannot be allowed). */
const MAX_DEPTH = 12;
/** Longer lines are not parsed (and so cannot be allowed). */
const MAX_LINE_CHARS = 100_000;
/** Targets written without writing a file. */
const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;
/** Backslash-newline joins lines before bash splits words (`r\⏎m` is `rm`); tree-sitter would split there. */
const LINE_CONTINUATION = /(?<!\\)((?:\\\\)*)\\\n/g;

/** Collects what one command line (and the code nested in it) would do. */
export class AnalysisSink {
  readonly result: ShellAnalysis = { commands: [], writes: [], unresolved: [], directories: [] };

  constructor(private readonly parser: ShellParser) {}

  unresolved(fragment: string, why: string, scope: Scope): void {
    this.result.unresolved.push({ fragment: fragment.trim(), why, via: scope.via });
  }

  /** A file the line writes; `fragment` is the command or redirection that writes it. */
  write(target: Word, how: string, fragment: string, scope: Scope): void {
    if (!target.literal || target.pattern) this.unresolved(fragment, `${how} writes to a path only known when the line runs (${target.text})`, scope);
    else if (!HARMLESS_TARGETS.test(target.text)) this.result.writes.push({ target: target.text, how, via: scope.via });
  }

  /**
   * Code found inside the line (`sh -c CODE`, `eval CODE`, a here-document fed to `sh`), analysed
   * like the line itself. Code only known at run time is analysed as written (so deny rules still
   * see `rm` in `sh -c "rm $x"`) and recorded as unresolved.
   */
  nested(code: string, literal: boolean, label: string, scope: Scope): void {
    const inner: Scope = { via: [...scope.via, label], stdin: INHERITED, depth: scope.depth + 1 };
    if (!literal) this.unresolved(`${label} ${code}`, `the code ${label} runs is only known when the line runs`, scope);
    const text = literal ? code : code.replace(/^"([\s\S]*)"$/, '$1');
    if (inner.depth > MAX_DEPTH) {
      this.unresolved(text, `code nested more than ${MAX_DEPTH} levels deep is not followed`, scope);
      return;
    }
    this.parseAndWalk(text, inner);
  }

  parseAndWalk(text: string, scope: Scope): void {
    if (text.length > MAX_LINE_CHARS) {
      this.unresolved(`${text.slice(0, 60)}…`, `lines over ${MAX_LINE_CHARS} characters are not parsed`, scope);
      return;
    }
    const tree = this.parser.parse(text.replace(LINE_CONTINUATION, '$1'));
    try {
      if (tree.rootNode.hasError) this.unresolved(text, 'it does not parse as a shell command line', scope);
      walkStatement(tree.rootNode, scope, this);
    } finally {
      tree.delete();
    }
  }
}

/** Analyses command lines with a loaded bash parser; synchronous, so a policy decision never waits. */
export class ShellAnalyzer {
  constructor(private readonly parser: ShellParser) {}

  analyze(line: string): ShellAnalysis {
    const sink = new AnalysisSink(this.parser);
    sink.parseAndWalk(line, { via: [], stdin: INHERITED, depth: 0 });
    return sink.result;
  }
}
