/**
 * An append-only JSONL file must end at a line boundary before anything is appended to it. A crash
 * mid-write, a power loss under `fsync: batch|never` or a full disk can leave a partial last line;
 * a record appended onto it would be glued to it, and every reader would skip both for good. So
 * the file's one writer calls cutTornTail() when it opens the file for appending (never a reader:
 * a line it sees unfinished may still be being written; readers skip a torn last line instead).
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * Appends `text` whole to `fd` (opened for appending) or not at all. A write can stop short: a disk
 * that fills up takes what fits, then refuses the rest (ENOSPC). What did reach the file is a torn
 * line the next append would be glued to, so it is cut off before the error goes on; the file
 * ends where it ended before. Returns the bytes written.
 */
export function appendWhole(fd: number, text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    if (written > 0) ftruncateSync(fd, fstatSync(fd).size - written);
    throw error;
  }
  return written;
}

/** What cutTornTail() found after the file's last newline. */
export interface TornTail {
  file: string;
  /** Bytes cut off; 0 when they were a whole record that only lacked its newline (it got one). */
  droppedBytes: number;
}

/** Hears of a file that did not end at a line boundary (see warnTornTail). */
export type TornTailReport = (tail: TornTail) => void;

const NEWLINE = 0x0a;
const CLOSING_BRACE = 0x7d;
/** Read backwards in steps of this many bytes to find the last newline. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Makes `path` end at a line boundary: what follows its last newline is cut off, unless it parses
 * as JSON (a record whose newline alone was lost: readers take it, so it is kept and terminated).
 * Returns the bytes cut (0 for a missing, empty or whole file). Only for the file's one writer.
 */
export function cutTornTail(path: string, report?: TornTailReport): number {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    const last = readAt(fd, size - 1, 1);
    if (last[0] === NEWLINE) return 0;
    const { boundary, tail } = tailAfterLastNewline(fd, size, last[0] === CLOSING_BRACE);
    if (tail !== undefined && isJson(tail)) {
      writeSync(fd, '\n', size);
      report?.({ file: path, droppedBytes: 0 });
      return 0;
    }
    ftruncateSync(fd, boundary);
    report?.({ file: path, droppedBytes: size - boundary });
    return size - boundary;
  } finally {
    closeSync(fd);
  }
}

/** The standard warning for a TornTailReport, in the logger of the file's owner. */
export function warnTornTail(logger: { warn(obj: object, msg?: string): void }): TornTailReport {
  return ({ file, droppedBytes }) => {
    if (droppedBytes === 0) {
      logger.warn({ code: 'W_JSONL_LAST_LINE_UNTERMINATED', file, droppedBytes }, `the last record of ${file} lacked its newline (an interrupted write); added it before appending`);
      return;
    }
    logger.warn(
      { code: 'W_JSONL_TORN_TAIL_CUT', file, droppedBytes },
      `cut ${droppedBytes} bytes of a torn last line off ${file} before appending: a crash, a power loss or a full disk interrupted that write, so it never held a whole record (check free disk space if this repeats)`,
    );
  };
}

/**
 * The offset just after the last newline (0 when there is none), and the bytes after it when
 * `wanted` (only a tail ending in `}` can be a whole record: no need to hold a long torn one).
 */
function tailAfterLastNewline(fd: number, size: number, wanted: boolean): { boundary: number; tail: Buffer | undefined } {
  const chunks: Buffer[] = [];
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - CHUNK_BYTES);
    const chunk = readAt(fd, start, end - start);
    const newline = chunk.lastIndexOf(NEWLINE);
    if (newline >= 0) {
      if (wanted) chunks.unshift(chunk.subarray(newline + 1));
      return { boundary: start + newline + 1, tail: wanted ? Buffer.concat(chunks) : undefined };
    }
    if (wanted) chunks.unshift(chunk);
    end = start;
  }
  return { boundary: 0, tail: wanted ? Buffer.concat(chunks) : undefined };
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

function isJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
