/**
 * tool-search (SPEC.md §5.4): for agents with many tools. Registers `tool-search__search`, which
 * finds catalog tools by keywords and SELECTS them (stored per instance in `api.state`); from the
 * next step on, a step middleware narrows `ctx.toolCatalog` to the selection, the `alwaysInclude`
 * tools and the search tool itself. With no selection the catalog is left whole.
 *
 * Choices where the spec is open: a search replaces the selection with its matches (the model
 * searches again to switch tools; `select` picks exact names, `select: []` restores every tool);
 * a search with no match keeps the previous selection; the selection persists across turns.
 */
import type { ExtensionApi, StepMiddlewareContext } from '../../../../shared/types/extensions.ts';
import type { JsonObject, JsonValue } from '../../../../shared/types/json.ts';
import type { ToolCatalogItem, ToolHandler } from '../../../../shared/types/tools.ts';
import { searchCatalog } from './search-catalog.ts';
import { readToolSearchConfig, type ToolSearchConfig } from './tool-search-config.ts';
import { ToolSelection } from './tool-selection.ts';

export const SEARCH_TOOL = 'tool-search__search';

const SEARCH_ITEM: ToolCatalogItem = {
  name: SEARCH_TOOL,
  description:
    'Find tools by keywords (name or purpose) and make the matching ones available from your next step on. ' +
    'Pass `select` with exact tool names to choose them instead; `select: []` makes every tool available again.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    properties: {
      query: { type: 'string', description: 'Keywords, e.g. "read file" or "send message".' },
      select: { type: 'array', items: { type: 'string' }, description: 'Exact tool names to make available (replaces the current selection).' },
    },
  },
  readOnly: true,
};

export async function register(api: ExtensionApi, config: JsonObject): Promise<void> {
  const options = readToolSearchConfig(config);
  const selection = new ToolSelection(api.state);
  await selection.load(api.logger);
  // The full catalog of the running step, before narrowing: what the search looks through.
  let fullCatalog: readonly ToolCatalogItem[] = [];

  api.tools.register(SEARCH_ITEM, searchHandler(() => fullCatalog, selection, options));
  api.pipeline.register('step', (ctx) => {
    fullCatalog = ctx.toolCatalog.filter((item) => item.name !== SEARCH_TOOL);
    narrowCatalog(ctx, selection.current, options.alwaysInclude);
    return ctx.next();
  });
}

/** Keeps the selected, always-included and search tools; leaves the catalog whole without a selection. */
export function narrowCatalog(ctx: Pick<StepMiddlewareContext, 'toolCatalog'>, selected: readonly string[], alwaysInclude: readonly string[]): void {
  if (selected.length === 0) return;
  const allowed = new Set([...selected, ...alwaysInclude, SEARCH_TOOL]);
  ctx.toolCatalog = ctx.toolCatalog.filter((item) => allowed.has(item.name));
}

function searchHandler(catalog: () => readonly ToolCatalogItem[], selection: ToolSelection, options: ToolSearchConfig): ToolHandler {
  return async (_ctx, input) => {
    const query = typeof input.query === 'string' ? input.query.trim() : '';
    const select = Array.isArray(input.select) ? input.select.filter((name): name is string => typeof name === 'string') : undefined;
    if (query === '' && select === undefined) {
      throw Object.assign(new Error('tool-search__search needs a "query" (keywords) or "select" (exact tool names)'), {
        code: 'E_TOOL_INVALID_ARGS',
        suggestion: 'Call it like {"query": "read file"} or {"select": ["file-system__read"]}.',
      });
    }
    const tools = catalog();
    const matches = query === '' ? [] : searchCatalog(tools, query, options.maxResults);
    const out: JsonObject = { matches: matches.map(({ score: _score, ...shown }) => shown) };

    if (select !== undefined) {
      const known = new Set(tools.map((item) => item.name));
      const unknown = select.filter((name) => !known.has(name));
      await selection.set(select.filter((name) => known.has(name)));
      if (unknown.length > 0) out.unknown = unknown;
    } else if (matches.length > 0) {
      await selection.set(matches.map((match) => match.name));
    }
    const selected: JsonValue[] = [...selection.current];
    out.selected = selected;
    out.note = noteFor(query, matches.length, select, selection.current.length);
    return out;
  };
}

function noteFor(query: string, matchCount: number, select: string[] | undefined, selectedCount: number): string {
  if (select !== undefined) {
    return selectedCount === 0 ? 'Selection cleared: every tool is available from your next step on.' : 'The selected tools are available from your next step on.';
  }
  if (matchCount === 0) return `No tool matched "${query}"; the selection is unchanged. Try other words.`;
  return 'The matching tools are selected and available from your next step on.';
}
