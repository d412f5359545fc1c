/**
 * `{server}__{tool}` names for MCP tools (tool spec §5.2): neither part may contain `__`, and the
 * AI SDK providers accept only `[A-Za-z0-9_-]`. Anything else becomes `-`; the caller warns when a
 * name changed, so the mapping is never silent.
 */

/** OpenAI-style providers reject longer tool names. */
export const PROVIDER_NAME_LIMIT = 64;

export function sanitizeNamePart(raw: string, position: 'server' | 'tool'): string {
  let name = raw.replace(/[^A-Za-z0-9_-]/g, '-').replace(/_{2,}/g, '-');
  // `a_` + `__` + `b` would read as `a` + `___b`: keep the separator the only `__` in the name.
  if (position === 'server') name = name.replace(/_$/, '-');
  else name = name.replace(/^_/, '-');
  return name === '' ? '-' : name;
}

export function mcpToolName(toolPrefix: string, toolName: string): string {
  return `${toolPrefix}__${sanitizeNamePart(toolName, 'tool')}`;
}
