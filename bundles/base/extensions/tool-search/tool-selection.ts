/**
 * The tool names the model selected, kept per instance in `api.state` as `{ selected: string[] }`
 * (SPEC.md §4.3: restored at start, written at turn end). An empty selection means "no narrowing".
 */
import type { ExtensionApi } from '../../../../shared/types/extensions.ts';
import type { JsonValue } from '../../../../shared/types/json.ts';
import type { Logger } from '../../../../shared/types/tools.ts';

export class ToolSelection {
  private names: string[] = [];

  constructor(private readonly state: ExtensionApi['state']) {}

  /** Reads the stored selection; a state that is not `{selected: string[]}` is ignored with a warning. */
  async load(logger: Logger): Promise<void> {
    const stored = await this.state.get();
    if (stored === null) return;
    const selected = selectedOf(stored);
    if (selected === undefined) {
      logger.warn({ code: 'E_TOOL_SEARCH_STATE', suggestion: 'Delete extensions/tool-search.json of this instance.' }, 'tool-search: stored state is not {selected: string[]}; starting with no selection');
      return;
    }
    this.names = selected;
  }

  get current(): readonly string[] {
    return this.names;
  }

  async set(names: readonly string[]): Promise<void> {
    this.names = [...new Set(names)];
    await this.state.set({ selected: [...this.names] });
  }
}

function selectedOf(value: JsonValue): string[] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const selected = value.selected;
  if (!Array.isArray(selected)) return undefined;
  const names = selected.filter((name): name is string => typeof name === 'string');
  return names.length === selected.length ? names : undefined;
}
