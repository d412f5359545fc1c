/**
 * Walks a tree-sitter-bash syntax tree: every simple command goes to the command resolver (lists,
 * pipelines, subshells, groups, if/while/for/case, function bodies, `$(…)`, backticks, `<(…)`),
 * redirections become writes or standard input, and assignments to variables that change what
 * runs (PATH, LD_PRELOAD, …) are unresolved.
 */
import type { Node } from 'web-tree-sitter';
import { resolveCommand } from './command-resolver.ts';
import { dangerousVariable } from './dangerous-environment.ts';
import { arithmeticAssignmentHazard, arithmeticHazard } from './shell-arithmetic.ts';
import { type AnalysisSink, INHERITED, type Scope, type Stdin } from './shell-analysis.ts';
import { wordOf } from './shell-words.ts';

const SUBSTITUTION_LABEL: Record<string, string> = { '$(': '$(…)', '`': '`…`', '<(': '<(…)', '>(': '>(…)' };
/** Redirection operators that only duplicate a descriptor when the target is a number or `-`. */
const DUPLICATING = new Set(['>&', '<&']);
const READING = new Set(['<', '<&']);

const present = (nodes: Array<Node | null>): Node[] => nodes.filter((n): n is Node => n !== null);

function walkChildren(node: Node, scope: Scope, sink: AnalysisSink): void {
  // Each node access crosses into wasm: skip the array for leaves (most words).
  if (node.namedChildCount === 0) return;
  for (const child of present(node.namedChildren)) walkStatement(child, scope, sink);
}

function walkSubstitution(node: Node, scope: Scope, sink: AnalysisSink): void {
  const opener = node.child(0)?.type ?? '$(';
  const inner: Scope = { via: [...scope.via, SUBSTITUTION_LABEL[opener] ?? '$(…)'], stdin: INHERITED, depth: scope.depth + 1 };
  walkChildren(node, inner, sink);
}

/** `a | b | c`: every stage after the first reads the previous one's output. */
function walkPipeline(node: Node, scope: Scope, sink: AnalysisSink): void {
  let piped = false;
  for (const child of present(node.children)) {
    if (!child.isNamed) {
      if (child.type === '|' || child.type === '|&') piped = true;
      continue;
    }
    walkStatement(child, piped ? { ...scope, stdin: { kind: 'pipe' } } : scope, sink);
  }
}

function checkVariable(nameNode: Node | null, fragment: Node, scope: Scope, sink: AnalysisSink): void {
  const why = dangerousVariable(nameNode?.text ?? '');
  if (why) sink.unresolved(fragment.text, why, scope);
}

interface RedirectEffect {
  /** The standard input it gives the command, if any. */
  stdin?: Stdin;
  /** Words after the target (`cmd > out push -f`): tree-sitter files them under the redirection, bash passes them to the command. */
  extraArgs: Node[];
}

/** A redirection: records writes, and says what it does to the command's input and words. */
function applyRedirect(node: Node, scope: Scope, sink: AnalysisSink): RedirectEffect {
  walkChildren(node, scope, sink);
  if (node.type === 'herestring_redirect') {
    const value = node.namedChildren.find((c) => c !== null && c.type !== 'file_descriptor');
    if (!value) return { extraArgs: [] };
    const word = wordOf(value);
    return { stdin: { kind: 'text', text: word.text, literal: word.literal }, extraArgs: [] };
  }
  if (node.type === 'heredoc_redirect') {
    const start = present(node.namedChildren).find((c) => c.type === 'heredoc_start')?.text ?? '';
    const body = present(node.namedChildren).find((c) => c.type === 'heredoc_body');
    // A quoted delimiter (<<'EOF') turns expansion off; otherwise the body is literal only without any.
    const quoted = /['"\\]/.test(start);
    const literal = quoted || !body || present(body.namedChildren).every((c) => c.type === 'heredoc_content');
    return { stdin: { kind: 'text', text: body?.text ?? '', literal }, extraArgs: [] };
  }
  if (node.type !== 'file_redirect') return { extraArgs: [] };
  const operator = present(node.children).find((c) => !c.isNamed)?.type ?? '>';
  const [destination, ...extraArgs] = node.childrenForFieldName('destination');
  if (!destination) return { extraArgs };
  if (READING.has(operator)) return operator === '<' ? { stdin: { kind: 'file' }, extraArgs } : { extraArgs };
  if (DUPLICATING.has(operator) && (destination.type === 'number' || destination.text === '-')) return { extraArgs };
  sink.write(wordOf(destination), `'${operator}' redirection`, node.parent?.text ?? node.text, scope);
  return { extraArgs };
}

const isRedirect = (node: Node) => node.type.endsWith('_redirect');

function applyRedirects(redirects: Node[], scope: Scope, sink: AnalysisSink): { stdin: Stdin; extraArgs: Node[] } {
  let stdin = scope.stdin;
  const extraArgs: Node[] = [];
  for (const redirect of redirects) {
    const effect = applyRedirect(redirect, scope, sink);
    stdin = effect.stdin ?? stdin;
    extraArgs.push(...effect.extraArgs);
  }
  return { stdin, extraArgs };
}

/** `body > file`, `body <<EOF`: redirections first, since they decide the body's standard input. */
function walkRedirected(node: Node, scope: Scope, sink: AnalysisSink): void {
  const { stdin, extraArgs } = applyRedirects(present(node.namedChildren).filter(isRedirect), scope, sink);
  const body = node.childForFieldName('body');
  if (body?.type === 'command') return walkCommand(body, { ...scope, stdin }, sink, extraArgs);
  if (body) walkStatement(body, { ...scope, stdin }, sink);
  if (extraArgs.length > 0) sink.unresolved(node.text, 'words follow a redirection of a compound command', scope);
}

function walkCommand(node: Node, scope: Scope, sink: AnalysisSink, trailingArgs: Node[] = []): void {
  const children = present(node.namedChildren);
  const { stdin, extraArgs } = applyRedirects(children.filter(isRedirect), scope, sink);
  // Prefix assignments and substitutions inside the words run before the command does.
  for (const child of children) if (!isRedirect(child)) walkStatement(child, scope, sink);
  const nameIndex = children.findIndex((c) => c.type === 'command_name');
  const nameNode = children[nameIndex]?.namedChildren[0];
  if (!nameNode) return;
  const args = [...children.slice(nameIndex + 1).filter((c) => !isRedirect(c)), ...extraArgs, ...trailingArgs];
  resolveCommand([wordOf(nameNode), ...args.map(wordOf)], { ...scope, stdin }, sink);
}

/** Any node: statements, words, expansions. Leaves without code in them end the walk. */
export function walkStatement(node: Node, scope: Scope, sink: AnalysisSink): void {
  const hazard = arithmeticHazard(node);
  if (hazard) sink.unresolved(node.text, hazard, scope);
  switch (node.type) {
    case 'command':
      return walkCommand(node, scope, sink);
    case 'redirected_statement':
      return walkRedirected(node, scope, sink);
    case 'pipeline':
      return walkPipeline(node, scope, sink);
    case 'command_substitution':
    case 'process_substitution':
      return walkSubstitution(node, scope, sink);
    case 'file_redirect':
    case 'heredoc_redirect':
    case 'herestring_redirect':
      applyRedirect(node, scope, sink);
      return;
    case 'variable_assignment':
      checkVariable(node.childForFieldName('name'), node, scope, sink);
      return walkChildren(node, scope, sink);
    case 'for_statement':
      checkVariable(node.childForFieldName('variable'), node, scope, sink);
      return walkChildren(node, scope, sink);
    case 'binary_expression':
    case 'postfix_expression':
    case 'unary_expression': {
      const why = arithmeticAssignmentHazard(node);
      if (why) sink.unresolved(node.text, why, scope);
      return walkChildren(node, scope, sink);
    }
    case 'declaration_command':
      if (present(node.namedChildren).some((c) => c.type === 'word' && /^-[A-Za-z]*n/.test(c.text))) sink.unresolved(node.text, 'a name reference (declare -n) can set any variable', scope);
      return walkChildren(node, scope, sink);
    case 'ansi_c_string':
      // dash reads `$'\'; cmd #'` as `$'\'` then `; cmd`, bash as one word: the tree is bash's.
      sink.unresolved(node.text, "$'…' quoting is read differently by /bin/sh (dash, which bash__exec runs) and by bash", scope);
      return;
    case 'test_command': {
      // `[ a > f ]` redirects and `[[ x || cmd ]]` runs cmd under /bin/sh: judge it as the plain command sh sees.
      const opener = node.child(0)?.text ?? '[';
      sink.nested(`test${node.text.slice(opener.length)}`, true, `${opener} … ${opener === '[[' ? ']]' : ']'}`, scope);
      return;
    }
    case 'compound_statement':
      // bash reads `((…))` as arithmetic, but the bash tool runs /bin/sh (dash), where it is two
      // nested subshells: `((rm -rf x))` deletes. Judge the inside as commands too.
      if (node.child(0)?.type === '((') sink.nested(node.text.slice(2, -2), true, '((…))', scope);
      return walkChildren(node, scope, sink);
    case 'function_definition':
      return walkChildren(node, { ...scope, via: [...scope.via, `function ${node.childForFieldName('name')?.text ?? ''}`] }, sink);
    case 'ERROR':
      // Reported once for the whole line (rootNode.hasError); what parsed around it is still judged.
      return walkChildren(node, scope, sink);
    default:
      return walkChildren(node, scope, sink);
  }
}
