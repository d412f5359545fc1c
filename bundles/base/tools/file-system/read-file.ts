/** `file-system__read`: a byte window of a text file, cut at character boundaries. */
import { open, stat } from 'node:fs/promises';
import type { JsonObject } from '../../../../shared/types/index.ts';
import { BaseToolError } from '../tool-error.ts';
import { resolveWorkspacePath } from '../workspace-path.ts';
import { binaryFile, fromSystemError, isDirectory } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { decodeText, incompleteTailLength, leadingContinuationLength } from './text-detection.ts';

export interface ReadArgs {
  path: string;
  maxBytes?: number;
  offset?: number;
}

const DEFAULT_MAX_BYTES = 100_000;

export async function readFile(settings: FileSystemSettings, args: ReadArgs): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path);
  const info = await stat(target.absolute).catch((error: unknown) => {
    throw fromSystemError(error, target.display);
  });
  if (info.isDirectory()) throw isDirectory(target.display);
  if (!info.isFile()) throw new BaseToolError('E_FS_NOT_A_FILE', `${target.display} is not a regular file (device, socket or pipe).`);

  const size = info.size;
  const maxBytes = Math.min(args.maxBytes ?? DEFAULT_MAX_BYTES, settings.maxReadBytes);
  const offset = args.offset ?? 0;
  if (offset > size) {
    throw new BaseToolError('E_FS_OFFSET', `offset ${offset} is past the end of ${target.display} (${size} bytes).`, {
      suggestion: `Use an offset between 0 and ${size}.`,
    });
  }

  const buffer = new Uint8Array(Math.min(maxBytes, size - offset));
  const handle = await open(target.absolute, 'r').catch((error: unknown) => {
    throw fromSystemError(error, target.display);
  });
  let bytesRead: number;
  try {
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
