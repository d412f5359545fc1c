/**
 * Walks a tree-sitter-bash syntax tree: every simple command goes to the command resolver (lists,
 * pipelines, subshells, groups, if/while/for/case, function bodies, `$(…)`, backticks, `<(…)`),
 * redirections become writes or standard input, and assignments to variables that change what
 * runs (PATH, LD_PRELOAD, …) are unresolved.
 */
import type { Node } from 'web-tree-sitter';
import { resolveCommand } from './command-resolver.ts';
import { dangerousVariable } from './dangerous-environment.ts';
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

const ARITHMETIC_ASSIGNMENT = new Set(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '^=', '|=', '++', '--']);

/** `(( PATH = 0 ))`, `let` in brackets, `PATH++`: arithmetic assigns variables too. */
function checkArithmetic(node: Node, scope: Scope, sink: AnalysisSink): void {
  if (!ARITHMETIC_ASSIGNMENT.has(node.childForFieldName('operator')?.text ?? '')) return;
  const target = node.childForFieldName('left') ?? present(node.namedChildren).find((c) => c.type === 'variable_name') ?? null;
  if (target?.type === 'variable_name') checkVariable(target, node, scope, sink);
}

/** A redirection: records writes and returns the standard input it gives the command, if any. */
function applyRedirect(node: Node, scope: Scope, sink: AnalysisSink): Stdin | undefined {
  walkChildren(node, scope, sink);
  if (node.type === 'herestring_redirect') {
    const value = node.namedChildren.find((c) => c !== null && c.type !== 'file_descriptor');
    if (!value) return undefined;
    const word = wordOf(value);
    return { kind: 'text', text: word.text, literal: word.literal };
  }
  if (node.type === 'heredoc_redirect') {
    const start = present(node.namedChildren).find((c) => c.type === 'heredoc_start')?.text ?? '';
    const body = present(node.namedChildren).find((c) => c.type === 'heredoc_body');
    // A quoted delimiter (<<'EOF') turns expansion off; otherwise the body is literal only without any.
    const quoted = /['"\\]/.test(start);
    const literal = quoted || !body || present(body.namedChildren).every((c) => c.type === 'heredoc_content');
    return { kind: 'text', text: body?.text ?? '', literal };
  }
  if (node.type !== 'file_redirect') return undefined;
  const operator = present(node.children).find((c) => !c.isNamed)?.type ?? '>';
  const destination = node.childForFieldName('destination');
  if (!destination) return undefined;
  if (READING.has(operator)) return operator === '<' ? { kind: 'file' } : undefined;
  if (DUPLICATING.has(operator) && (destination.type === 'number' || destination.text === '-')) return undefined;
  sink.write(wordOf(destination), `'${operator}' redirection`, node.parent?.text ?? node.text, scope);
  return undefined;
}

const isRedirect = (node: Node) => node.type.endsWith('_redirect');
const redirectsOf = (node: Node): Node[] => present(node.namedChildren).filter(isRedirect);

/** `body > file`, `body <<EOF`: redirections first, since they decide the body's standard input. */
function walkRedirected(node: Node, scope: Scope, sink: AnalysisSink): void {
  let stdin = scope.stdin;
  for (const redirect of redirectsOf(node)) stdin = applyRedirect(redirect, scope, sink) ?? stdin;
  const body = node.childForFieldName('body');
  if (body) walkStatement(body, { ...scope, stdin }, sink);
}

function walkCommand(node: Node, scope: Scope, sink: AnalysisSink): void {
  const children = present(node.namedChildren);
  let stdin = scope.stdin;
  for (const redirect of children.filter(isRedirect)) stdin = applyRedirect(redirect, scope, sink) ?? stdin;
  // Prefix assignments and substitutions inside the words run before the command does.
  for (const child of children) if (!isRedirect(child)) walkStatement(child, scope, sink);
  const nameIndex = children.findIndex((c) => c.type === 'command_name');
  const nameNode = children[nameIndex]?.namedChildren[0];
  if (!nameNode) return;
  const args = children.slice(nameIndex + 1).filter((c) => !isRedirect(c));
  resolveCommand([wordOf(nameNode), ...args.map(wordOf)], { ...scope, stdin }, sink);
}

/** Any node: statements, words, expansions. Leaves without code in them end the walk. */
export function walkStatement(node: Node, scope: Scope, sink: AnalysisSink): void {
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
    case 'unary_expression':
      checkArithmetic(node, scope, sink);
      return walkChildren(node, scope, sink);
    case 'declaration_command':
      if (present(node.namedChildren).some((c) => c.type === 'word' && /^-[A-Za-z]*n/.test(c.text))) sink.unresolved(node.text, 'a name reference (declare -n) can set any variable', scope);
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
