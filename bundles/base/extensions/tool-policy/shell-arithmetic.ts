/**
 * bash arithmetic runs code hidden in variable values: with x='a[$(rm -rf ~)]', `$((x))`,
 * `((x))`, `${arr[$x]}`, `a[$x]=1`, `[[ $x -eq 1 ]]`, `declare -i y=$x` and `let y=x` all run rm
 * (dash does not, but `bash -c` does). An arithmetic context that reads a variable cannot be
 * judged; `${x@P}` prompt expansion likewise. Assigning PATH-like variables there is checked too.
 */
import type { Node } from 'web-tree-sitter';
import { dangerousVariable } from './dangerous-environment.ts';

export const ARITHMETIC_CODE = 'bash evaluates variable values in arithmetic as expressions, and a value like a[$(cmd)] runs cmd';
const ASSIGNING = new Set(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '^=', '|=', '++', '--']);
const REFERENCE = new Set(['simple_expansion', 'expansion', 'variable_name', 'subscript', 'command_substitution']);
const IDENTIFIER = /^[A-Za-z_]/;
const NUMERIC_TEST = /\s-(eq|ne|lt|le|gt|ge)\s/;

/** Does the arithmetic expression read a variable (`$x`, `${x}`, or a bare name)? */
export function readsVariable(node: Node): boolean {
  if (REFERENCE.has(node.type) || (node.type === 'word' && IDENTIFIER.test(node.text))) return true;
  if (node.namedChildCount === 0) return false;
  return node.namedChildren.some((child) => child !== null && readsVariable(child));
}

/** Why this node makes the line unjudgeable through arithmetic, if it does. */
export function arithmeticHazard(node: Node): string | undefined {
  switch (node.type) {
    case 'arithmetic_expansion':
      return readsVariable(node) ? ARITHMETIC_CODE : undefined;
    case 'compound_statement':
      return node.child(0)?.type === '((' && readsVariable(node) ? ARITHMETIC_CODE : undefined;
    case 'c_style_for_statement':
      return ['initializer', 'condition', 'update'].some((field) => node.childrenForFieldName(field).some(readsVariable)) ? ARITHMETIC_CODE : undefined;
    case 'subscript': {
      const index = node.childForFieldName('index');
      return index && readsVariable(index) ? ARITHMETIC_CODE : undefined;
    }
    case 'expansion':
      return /@P\}$/.test(node.text) ? 'bash prompt expansion (${x@P}) runs $(…) found in the value' : undefined;
    case 'test_command':
      return node.child(0)?.type === '[[' && NUMERIC_TEST.test(node.text) && readsVariable(node) ? ARITHMETIC_CODE : undefined;
    case 'declaration_command':
      return node.namedChildren.some((c) => c?.type === 'word' && /^-[A-Za-z]*i/.test(c.text)) && node.namedChildren.some((c) => c?.type === 'variable_assignment' && readsVariable(c.childForFieldName('value') ?? c))
        ? ARITHMETIC_CODE
        : undefined;
    default:
      return undefined;
  }
}

/** `(( PATH = 0 ))`, `PATH++`: arithmetic assigns variables too. */
export function arithmeticAssignmentHazard(node: Node): string | undefined {
  if (!ASSIGNING.has(node.childForFieldName('operator')?.text ?? '')) return undefined;
  const target = node.childForFieldName('left') ?? node.namedChildren.find((c) => c?.type === 'variable_name' || c?.type === 'word') ?? null;
  return target ? dangerousVariable(target.text) : undefined;
}
