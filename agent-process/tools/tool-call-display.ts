/**
 * How people see one call (issue 17): the export's `summary` template rendered over the call's
 * arguments and the tool's config, as one line of at most 200 characters, with its `displayName`
 * and `icon` — so an approval prompt or a log line reads "Run git status", not `bash__exec {…}`.
 * Control characters in the arguments are shown as escapes: the summary reaches terminals, chat
 * connectors and the studio, and must not drive any of them.
 */
import { clipMiddle, terminalLine } from '../../shared/terminal-text.ts';
import { renderTemplate } from '../../shared/templates/call-template.ts';
import type { ToolCallDisplay } from '../../shared/types/extensions.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ToolCatalogItem } from '../../shared/types/tools.ts';

export const MAX_SUMMARY_CHARS = 200;

export function callDisplay(item: ToolCatalogItem | undefined, args: JsonObject, config: JsonObject): ToolCallDisplay {
  const display: ToolCallDisplay = {};
  if (item?.displayName !== undefined) display.displayName = item.displayName;
  if (item?.icon !== undefined) display.icon = item.icon;
  if (item?.summary !== undefined) display.summary = oneLine(renderTemplate(item.summary, { args, config }));
  return display;
}

/** Whitespace runs as one space, other controls as escapes; a long one keeps its end (what a command pipes into). */
function oneLine(text: string): string {
  return clipMiddle(terminalLine(text.replace(/\s+/g, ' ').trim()), MAX_SUMMARY_CHARS);
}
