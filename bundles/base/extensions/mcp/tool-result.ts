/**
 * An MCP `CallToolResult` as the JSON value the model reads (tool spec §10):
 * - `structuredContent` when present (it is the machine-readable answer);
 * - otherwise the text parts joined as one string when every part is text;
 * - otherwise an array of parts, binary data (images, audio, blobs) described, never dumped.
 * `isError: true` is thrown as E_MCP_TOOL_ERROR with the text as message; the executor makes it
 * an error ToolResult.
 */
import type { JsonObject, JsonValue } from '../../../../shared/types/json.ts';
import { isJsonObject, toJsonValue } from './json-value.ts';
import { McpExtensionError } from './mcp-error.ts';

/** What `client.callTool` resolves to, read structurally (the SDK also allows the legacy `toolResult`). */
export interface CallToolReply {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
}

export function mapToolResult(reply: CallToolReply, where: { server: string; tool: string }): JsonValue {
  const parts = Array.isArray(reply.content) ? reply.content.map(describePart) : [];
  if (reply.isError === true) {
    const text = textOf(parts);
    throw new McpExtensionError('E_MCP_TOOL_ERROR', text !== '' ? text : `MCP tool '${where.tool}' of server '${where.server}' reported an error without a message`, {
      suggestion: 'Read the error, then fix the arguments or try another approach.',
    });
  }
  if (reply.structuredContent !== undefined && reply.structuredContent !== null) return toJsonValue(reply.structuredContent);
  if (!Array.isArray(reply.content) && reply.toolResult !== undefined) return toJsonValue(reply.toolResult); // protocol 2024-10-07
  if (parts.every((part) => part.type === 'text')) return parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n');
  return parts;
}

function textOf(parts: readonly JsonObject[]): string {
  const texts = parts.filter((part) => typeof part.text === 'string').map((part) => String(part.text));
  if (texts.length > 0) return texts.join('\n');
  return parts.length > 0 ? JSON.stringify(parts) : '';
}

/** One content block as something readable: text kept, binary described by type, MIME type and size. */
export function describePart(block: unknown): JsonObject {
  const part = toJsonValue(block);
  if (!isJsonObject(part)) return { type: 'unknown', note: 'the server sent a content part that is not an object' };
  const type = typeof part.type === 'string' ? part.type : 'unknown';
  switch (type) {
    case 'text':
      return { type, text: typeof part.text === 'string' ? part.text : '' };
    case 'image':
    case 'audio':
      return withDefined({ type, mimeType: part.mimeType, size: base64Size(part.data), note: `${type} data not shown` });
    case 'resource_link':
      return withDefined({ type, uri: part.uri, name: part.name, title: part.title, mimeType: part.mimeType, description: part.description });
    case 'resource': {
      const resource = isJsonObject(part.resource) ? part.resource : {};
      if (typeof resource.text === 'string') return withDefined({ type, uri: resource.uri, mimeType: resource.mimeType, text: resource.text });
      return withDefined({ type, uri: resource.uri, mimeType: resource.mimeType, size: base64Size(resource.blob), note: 'binary resource data not shown' });
    }
    default:
      return { type, note: `content of type '${type}' is not shown` };
  }
}

function base64Size(data: JsonValue | undefined): string | undefined {
  if (typeof data !== 'string') return undefined;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return `${Math.max(0, Math.floor((data.length * 3) / 4) - padding)} bytes`;
}

function withDefined(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}
