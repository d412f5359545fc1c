/** The file-system errors several operations raise, with the same code, wording and advice. */
import { BaseToolError, describeError, systemErrorCode } from '../tool-error.ts';

export function notFound(path: string): BaseToolError {
  return new BaseToolError('E_FS_NOT_FOUND', `No such file or directory: ${path}`, {
    suggestion: 'Check the path with file-system__list or file-system__glob (paths are relative to the workspace).',
    details: { path },
  });
}

export function isDirectory(path: string): BaseToolError {
  return new BaseToolError('E_FS_IS_DIRECTORY', `${path} is a directory, not a file.`, {
    suggestion: 'Use file-system__list to see what it contains.',
    details: { path },
  });
}

export function notADirectory(path: string): BaseToolError {
  return new BaseToolError('E_FS_NOT_A_DIRECTORY', `${path} is not a directory.`, {
    suggestion: 'Use file-system__read for files.',
    details: { path },
  });
}

export function binaryFile(path: string, size: number, reason: string): BaseToolError {
  return new BaseToolError('E_FS_BINARY', `${path} looks like a binary file (${size} bytes; ${reason}), so its content is not shown.`, {
    suggestion: 'Inspect it with bash__exec (e.g. `file`, `xxd -l 256`, `strings`), or read a text file instead.',
    details: { path, size },
  });
}

export function tooLarge(path: string, bytes: number, limit: number, what: string): BaseToolError {
  return new BaseToolError('E_FS_TOO_LARGE', `${what} for ${path} is ${bytes} bytes, over the limit of ${limit} bytes.`, {
    suggestion: 'Split the content into smaller writes (append: true), or raise maxWriteBytes in the tool config.',
    details: { path, bytes, limit },
  });
}

/** Maps a system error of an fs call on `path` to a tool error with a stable code. */
export function fromSystemError(error: unknown, path: string): Error {
  const code = systemErrorCode(error);
  if (code === 'ENOENT') return notFound(path);
  if (code === 'EISDIR') return isDirectory(path);
  if (code === 'ENOTDIR') return new BaseToolError('E_FS_NOT_A_DIRECTORY', `A parent of ${path} is a file, not a directory.`, { details: { path } });
  if (code === 'EACCES' || code === 'EPERM') {
    return new BaseToolError('E_FS_PERMISSION', `Permission denied: ${path}`, { suggestion: 'The agent process may not access this path; choose another.', details: { path } });
  }
  if (code === 'EEXIST') return new BaseToolError('E_FS_EXISTS', `${path} already exists.`, { details: { path } });
  return new BaseToolError('E_FS_IO', `File system error on ${path}: ${describeError(error)}`, { details: { path, errno: code ?? null } });
}
