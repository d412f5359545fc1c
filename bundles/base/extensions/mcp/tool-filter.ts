/**
 * The per-server `include` / `exclude` lists: MCP tool names (as the server spells them) with `*`
 * and `?` wildcards. An empty include list means every tool; exclude wins over include.
 */

export interface ToolFilter {
  accepts(toolName: string): boolean;
}

export function createToolFilter(include: readonly string[], exclude: readonly string[]): ToolFilter {
  const included = include.map(globToRegExp);
  const excluded = exclude.map(globToRegExp);
  return {
    accepts(toolName) {
      if (excluded.some((pattern) => pattern.test(toolName))) return false;
      return included.length === 0 || included.some((pattern) => pattern.test(toolName));
    },
  };
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}
