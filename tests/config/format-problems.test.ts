/** Text output of problems: `file:line:col  CODE  message` and an indented hint. */
import { describe, expect, test } from 'bun:test';
import { formatProblemsText } from '../../shared/config/index.ts';

describe('formatProblemsText', () => {
  test('prints paths relative to cwd, the code, the JSON path and the hint', () => {
    const text = formatProblemsText(
      [{ code: 'E_CONFIG_REF_NOT_FOUND', message: 'Tool/bsh not found', file: '/work/b/agents.yaml', line: 3, column: 7, path: 'spec.tools[0]', suggestion: 'did you mean "Tool/bash"?' }],
      '/work',
    );
    expect(text).toBe('b/agents.yaml:3:7  E_CONFIG_REF_NOT_FOUND  spec.tools[0]: Tool/bsh not found\n  hint: did you mean "Tool/bash"?');
  });

  test('does not repeat a path the message already starts with; multi-line hints stay indented', () => {
    const text = formatProblemsText(
      [{ code: 'E_CONFIG_SCHEMA_INVALID', message: 'spec.model must be a string', file: '/x/goondan.yaml', line: 1, column: 1, path: 'spec.model', suggestion: 'one\ntwo' }],
      '/elsewhere',
    );
    expect(text).toBe('../x/goondan.yaml:1:1  E_CONFIG_SCHEMA_INVALID  spec.model must be a string\n  hint: one\n        two');
  });
});
