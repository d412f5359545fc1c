/**
 * What a toolCall middleware may return (tool spec §10.1, §8.4): our ToolResult, or the spec's own
 * shape `{status, output?, handle?, error?}` without `toolCallId` / `toolName` — the engine fills
 * them in from the call, and gives an error without `code` / `category` the spec's defaults
 * (`E_TOOL`, category `tool`). Anything else is not a ToolResult (→ E_EXT_MIDDLEWARE).
 */
import { isErrorShape } from '../../shared/errors/index.ts';
import type { ToolCall, ToolError, ToolResult } from '../../shared/types/tools.ts';
import { isJsonValue } from '../validation/json-value.ts';

export function asToolResult(value: unknown, call: Pick<ToolCall, 'id' | 'name'>): ToolResult | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const status: unknown = Reflect.get(value, 'status');
  if (status !== 'ok' && status !== 'error' && status !== 'pending') return undefined;
  const toolCallId: unknown = Reflect.get(value, 'toolCallId') ?? call.id;
  const toolName: unknown = Reflect.get(value, 'toolName') ?? call.name;
  const output: unknown = Reflect.get(value, 'output');
  const handle: unknown = Reflect.get(value, 'handle');
  if (typeof toolCallId !== 'string' || typeof toolName !== 'string') return undefined;
  if (output !== undefined && !isJsonValue(output)) return undefined;
  if (handle !== undefined && typeof handle !== 'string') return undefined;
  const result: ToolResult = { toolCallId, toolName, status };
  if (output !== undefined) result.output = output;
  if (handle !== undefined) result.handle = handle;
  const error: unknown = Reflect.get(value, 'error');
  if (status === 'error' || error !== undefined) {
    const shaped = asToolError(error);
    if (!shaped) return undefined;
    result.error = shaped;
  }
  return result;
}

/** tool spec §10.1 ToolError: `message` required, `code` / `name` / `suggestion` / `helpUrl` optional. */
function asToolError(error: unknown): ToolError | undefined {
  if (isErrorShape(error)) return error;
  if (error === undefined) return { code: 'E_TOOL', category: 'tool', message: 'the tool call failed' };
  if (typeof error !== 'object' || error === null) return undefined;
  const message: unknown = Reflect.get(error, 'message');
  if (typeof message !== 'string') return undefined;
  const shaped: ToolError = { code: 'E_TOOL', category: 'tool', message };
  const code: unknown = Reflect.get(error, 'code');
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) shaped.code = code;
  for (const key of ['name', 'suggestion', 'helpUrl'] as const) {
    const text: unknown = Reflect.get(error, key);
    if (typeof text === 'string') shaped[key] = text;
  }
  return shaped;
}
