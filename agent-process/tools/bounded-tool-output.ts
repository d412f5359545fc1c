/**
 * Bounded tool results (issue 9: a 50 MB result was stored whole and sent to the model). A result
 * whose text is larger than the bound is saved whole in the instance workspace and replaced, in the
 * conversation and for the model, by its beginning plus a marker saying where the rest is and how
 * to page through it with `file-system__read` (`path`, `offset`).
 */
import type { ToolResult } from '../../shared/types/tools.ts';
import { writeWorkspaceFile } from './workspace-file.ts';

/** Where saved outputs go, relative to the workspace (the model reads them with file-system__read). */
export const SAVED_OUTPUT_DIR = '.goondan/tool-output';

export function boundToolResult(result: ToolResult, maxBytes: number, workdir: string): ToolResult {
  if (result.status !== 'ok' || result.output === undefined) return result;
  const text = typeof result.output === 'string' ? result.output : JSON.stringify(result.output, null, 2);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return result;
  const fileName = `${result.toolCallId.replace(/[^A-Za-z0-9_-]/g, '_')}.${typeof result.output === 'string' ? 'txt' : 'json'}`;
  const relative = `${SAVED_OUTPUT_DIR}/${fileName}`;
  const preview = utf8Prefix(text, maxBytes);
  const shown = Buffer.byteLength(preview, 'utf8');
  const truncated = `\n\n[output truncated by goondan: ${bytes} bytes in total, the first ${shown} shown. `;
  try {
    writeWorkspaceFile(workdir, relative, text);
  } catch (error) {
    // The workspace is the tools' to shape (a link or a file where the directory goes): the rest is dropped, never written elsewhere.
    const why = error instanceof Error ? error.message : String(error);
    return { ...result, output: `${preview}${truncated}The rest could not be saved in ${relative} (${why}).]` };
  }
  const marker = `${truncated}The whole output is in the workspace file ${relative}; read on with file-system__read {"path": "${relative}", "offset": ${shown}}]`;
  return { ...result, output: `${preview}${marker}` };
}

/** The longest prefix of `text` whose UTF-8 form fits `maxBytes` (never splitting a character). */
function utf8Prefix(text: string, maxBytes: number): string {
  const decoded = new TextDecoder().decode(Buffer.from(text, 'utf8').subarray(0, maxBytes));
  // A character cut in half decodes to one U+FFFD that the original does not have there.
  return text.startsWith(decoded) ? decoded : decoded.slice(0, -1);
}
