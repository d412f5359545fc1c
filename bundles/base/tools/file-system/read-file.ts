/** `file-system__read`: a byte window of a text file, cut at character boundaries. */
import type { JsonObject } from '../../../../shared/types/index.ts';
import { BaseToolError } from '../tool-error.ts';
import { resolveWorkspacePath } from '../workspace-path.ts';
import { binaryFile } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { decodeText, incompleteTailLength, leadingContinuationLength } from './text-detection.ts';
import { openExistingFile } from './verified-open.ts';

export interface ReadArgs {
  path: string;
  maxBytes?: number;
  offset?: number;
}

const DEFAULT_MAX_BYTES = 100_000;

export async function readFile(settings: FileSystemSettings, args: ReadArgs): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path);
  // Opened once and verified; size and content come from that same descriptor.
  const { handle, stats } = await openExistingFile(settings.policy, target, 'read');
  const size = stats.size;
  const maxBytes = Math.min(args.maxBytes ?? DEFAULT_MAX_BYTES, settings.maxReadBytes);
  const offset = args.offset ?? 0;
  let bytesRead: number;
  const buffer = new Uint8Array(Math.max(0, Math.min(maxBytes, size - offset)));
  try {
    if (offset > size) {
      throw new BaseToolError('E_FS_OFFSET', `offset ${offset} is past the end of ${target.display} (${size} bytes).`, {
        suggestion: `Use an offset between 0 and ${size}.`,
      });
    }
    ({ bytesRead } = await handle.read(buffer, 0, buffer.byteLength, offset));
  } finally {
    await handle.close();
  }
  const raw = buffer.subarray(0, bytesRead);
  // Never split a UTF-8 character at either end of the window.
  const lead = offset > 0 ? leadingContinuationLength(raw) : 0;
  const cut = offset + bytesRead < size ? incompleteTailLength(raw) : 0;
  const window = raw.subarray(lead, raw.byteLength - cut);
  const decoded = decodeText(window);
  if (!decoded.text) throw binaryFile(target.display, size, decoded.reason);
  if (window.byteLength === 0 && bytesRead > 0) {
    throw new BaseToolError('E_FS_RANGE', `maxBytes ${maxBytes} is too small to hold one character at offset ${offset}.`, { suggestion: 'Use maxBytes of at least 4.' });
  }

  const start = offset + lead;
  const end = start + window.byteLength;
  const truncated = end < size;
  const output: JsonObject = {
    path: target.display,
    size,
    offset: start,
    bytesRead: window.byteLength,
    truncated,
    nextOffset: truncated ? end : null,
    content: decoded.content,
  };
  if (truncated) output.note = `Showing bytes ${start}-${end} of ${size}. Call again with offset=${end} for more.`;
  return output;
}
