/**
 * `file-system__edit`: exact find/replace. The match must be unique unless `replaceAll`, so an edit
 * never lands in the wrong place; a miss or an ambiguous match is an error that says how to fix it.
 */
import type { FileHandle } from 'node:fs/promises';
import type { JsonObject } from '../../../../shared/types/index.ts';
import { BaseToolError } from '../tool-error.ts';
import { resolveWorkspacePath } from '../workspace-path.ts';
import { binaryFile, fromSystemError, tooLarge } from './fs-errors.ts';
import type { FileSystemSettings } from './fs-config.ts';
import { decodeText } from './text-detection.ts';
import { openExistingFile } from './verified-open.ts';

export interface EditArgs {
  path: string;
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

const MAX_LISTED_LINES = 10;

export async function editFile(settings: FileSystemSettings, args: EditArgs): Promise<JsonObject> {
  const target = resolveWorkspacePath(settings.policy, args.path);
  if (args.oldText === '') {
    throw new BaseToolError('E_FS_EDIT_EMPTY', 'oldText is empty, so there is nothing to find.', {
      suggestion: 'To create or overwrite a whole file use file-system__write; to insert, include the neighbouring text in oldText.',
    });
  }
  if (args.oldText === args.newText) {
    throw new BaseToolError('E_FS_EDIT_NOOP', 'oldText and newText are identical, so the edit would change nothing.', { suggestion: 'Pass the text that should replace oldText.' });
  }
  // Read and rewritten through one verified descriptor.
  const { handle, stats } = await openExistingFile(settings.policy, target, 'read-write');
  try {
    return await editOpenFile(settings, handle, stats.size, target.display, args);
  } finally {
    await handle.close();
  }
}

async function editOpenFile(settings: FileSystemSettings, handle: FileHandle, size: number, display: string, args: EditArgs): Promise<JsonObject> {
  if (size > settings.maxWriteBytes) throw tooLarge(display, size, settings.maxWriteBytes, 'The file');
  const decoded = decodeText(new Uint8Array(await handle.readFile()));
  if (!decoded.text) throw binaryFile(display, size, decoded.reason);
  const original = decoded.content;

  let { oldText, newText } = args;
  let positions = occurrences(original, oldText);
  // A model usually writes "\n"; a CRLF file still matches, and the replacement keeps CRLF.
  if (positions.length === 0 && original.includes('\r\n') && !oldText.includes('\r\n') && oldText.includes('\n')) {
    oldText = oldText.replace(/\n/g, '\r\n');
    newText = newText.replace(/\r?\n/g, '\r\n');
    positions = occurrences(original, oldText);
  }
  if (positions.length === 0) throw noMatch(display, original, args.oldText);
  if (positions.length > 1 && args.replaceAll !== true) {
    const lines = positions.slice(0, MAX_LISTED_LINES).map((index) => lineOf(original, index));
    throw new BaseToolError('E_FS_NOT_UNIQUE', `oldText occurs ${positions.length} times in ${display} (lines ${lines.join(', ')}${positions.length > lines.length ? ', …' : ''}); the edit needs exactly one match.`, {
      suggestion: 'Add surrounding lines to oldText so it matches only once, or pass replaceAll: true to change every occurrence.',
      details: { path: display, count: positions.length, lines },
    });
  }

  // Slicing, not String.replace: "$&" and friends in newText must stay literal.
  let updated = '';
  let from = 0;
  for (const index of positions) {
    updated += original.slice(from, index) + newText;
    from = index + oldText.length;
  }
  updated += original.slice(from);
  const bytes = Buffer.byteLength(updated, 'utf8');
  if (bytes > settings.maxWriteBytes) throw tooLarge(display, bytes, settings.maxWriteBytes, 'The edited file');
  try {
    await handle.truncate(0);
    // Positional writes: the read left the file position at the old end.
    const encoded = Buffer.from(updated, 'utf8');
    for (let offset = 0; offset < encoded.byteLength; ) offset += (await handle.write(encoded, offset, encoded.byteLength - offset, offset)).bytesWritten;
  } catch (error) {
    throw fromSystemError(error, display);
  }
  return { path: display, replacements: positions.length, firstLine: lineOf(original, positions[0] ?? 0), size: bytes };
}

/** Start indexes of non-overlapping occurrences. */
function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) found.push(index);
  return found;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

function noMatch(path: string, content: string, oldText: string): BaseToolError {
  const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();
  const whitespaceOnly = squash(content).includes(squash(oldText));
  return new BaseToolError('E_FS_NO_MATCH', `oldText was not found in ${path}.`, {
    suggestion: whitespaceOnly
      ? 'It matches when whitespace is ignored: copy the exact text, including indentation and line breaks, from file-system__read.'
      : 'Read the file again (file-system__read) and copy the exact text to replace.',
    details: { path, whitespaceMismatch: whitespaceOnly },
  });
}
