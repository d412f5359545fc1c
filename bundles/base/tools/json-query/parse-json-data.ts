/** Parses the `data` argument; bad JSON is `E_JSON_PARSE` with line, column and the text around it. */
import type { JsonValue } from '../../../../shared/types/index.ts';
import { BaseToolError, describeError } from '../tool-error.ts';
import { jsonErrorOffset } from './json-error-position.ts';

export function parseJsonData(data: string): JsonValue {
  try {
    const value: JsonValue = JSON.parse(data);
    return value;
  } catch (error) {
    const offset = jsonErrorOffset(data) ?? data.length;
    const before = data.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    const found = offset >= data.length ? 'end of input' : JSON.stringify(data.charAt(offset));
    const context = data.slice(Math.max(0, offset - 20), offset + 20);
    throw new BaseToolError('E_JSON_PARSE', `data is not valid JSON: unexpected ${found} at line ${line}, column ${column} (offset ${offset}) near ${JSON.stringify(context)}. ${describeError(error)}`, {
      suggestion: 'Pass the JSON text itself as a string: double-quoted keys and strings, no trailing commas, no comments.',
      details: { offset, line, column },
    });
  }
}
