/**
 * How a ToolResult reaches the model (SPEC.md §5.2): strings as text, other outputs as JSON, errors
 * as JSON `{status:'error', error:{code, message, suggestion, …}}` so the model sees the code and
 * the suggestion.
 */
import type { ToolResultPart } from 'ai';
import type { JsonObject, JsonValue } from '../../shared/types/json.ts';
import type { ToolResult } from '../../shared/types/tools.ts';

export type ToolResultOutput = ToolResultPart['output'];

export function toolResultOutput(result: ToolResult): ToolResultOutput {
  if (result.status === 'error') {
    // The model sees tool spec §10.3's fields: code, name, message, suggestion, helpUrl (not category or details).
    const error: JsonObject = { code: result.error?.code ?? 'E_TOOL', message: result.error?.message ?? 'Tool failed' };
    if (result.error?.name !== undefined) error.name = result.error.name;
    if (result.error?.suggestion !== undefined) error.suggestion = result.error.suggestion;
    if (result.error?.helpUrl !== undefined) error.helpUrl = result.error.helpUrl;
    return { type: 'json', value: { status: 'error', error } };
  }
  if (result.status === 'pending') {
    // tool spec §10.2: the handle, plus what the tool says about the pending work (if anything).
    const value: JsonObject = { status: 'pending' };
    if (result.handle !== undefined) value.handle = result.handle;
    if (result.output !== undefined) value.output = result.output;
    return { type: 'json', value };
  }
  const output: JsonValue = result.output ?? null;
  return typeof output === 'string' ? { type: 'text', value: output } : { type: 'json', value: output };
}
