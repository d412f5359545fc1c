/**
 * Open first, then verify what was opened (issue 9): checking a path and then opening it lets a
 * symbolic link swapped in between lead outside the workspace. Here a file or directory is opened
 * by its checked real path with O_NOFOLLOW, and the kernel's own record of the opened descriptor
 * (`/proc/self/fd/N`) must lie inside an allowed root. Children of a verified directory are reached
 * through its descriptor (`/proc/self/fd/N/name`, Linux's `openat`), never by re-walking a path.
 * Regular files with more than one hard link are refused: another link may sit outside.
 */
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, readlink, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname } from 'node:path';
import { BaseToolError, systemErrorCode } from '../tool-error.ts';
import { allowedRoots, isAllowed, outsideWorkdir, type PathPolicy, type ResolvedPath } from '../workspace-path.ts';
import { fromSystemError, isDirectory, notADirectory, notFound } from './fs-errors.ts';

const PROC_FD = '/proc/self/fd';
// O_NONBLOCK: opening a FIFO must not hang the agent; O_NOCTTY: a terminal must not become ours.
const SAFE = constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The path of `name` inside the directory open as `dir`; resolving it never re-walks the directory's path. */
export function pathIn(dir: FileHandle, name: string): string {
  return `${PROC_FD}/${dir.fd}/${name}`;
}

/** The real path of what `handle` refers to, as the kernel records it. */
async function descriptorPath(handle: FileHandle): Promise<string> {
  if (!existsSync(PROC_FD)) {
    throw new BaseToolError('E_FS_UNSUPPORTED', 'The file-system tool verifies every file it opens through /proc/self/fd, which this system does not have.', {
      suggestion: 'Run goondan on Linux (with /proc mounted).',
    });
  }
  return readlink(`${PROC_FD}/${handle.fd}`);
}

/** Refuses (and closes) a descriptor whose real path is outside the allowed roots. */
async function verifyInside(policy: PathPolicy, handle: FileHandle, target: ResolvedPath): Promise<void> {
  const roots = allowedRoots(policy);
  if (roots === undefined) return;
  const opened = await descriptorPath(handle);
  if (isAllowed(roots, opened)) return;
  await handle.close();
  throw outsideWorkdir(policy, `${target.display} was opened as ${opened}, which is outside the workspace ${policy.workdir} (a link changed while it was being opened); nothing was read or written.`, {
    path: target.display,
    resolved: opened,
    absolute: false,
  });
}

function pathChanged(display: string): BaseToolError {
  return new BaseToolError('E_FS_PATH_CHANGED', `${display} changed while it was being opened (part of it became a symbolic link); nothing was read or written.`, {
    suggestion: 'Retry. If it keeps happening, something is replacing files in the workspace while the tool runs.',
    details: { path: display },
  });
}

export function hardLinked(display: string, links: number): BaseToolError {
  return new BaseToolError('E_FS_HARDLINK', `${display} has ${links} hard links; another of them may be a file outside the workspace, so the file tools do not read or write it.`, {
    suggestion: 'Work on a copy instead (copy it to a new file and use that), or remove the extra links. An operator who trusts this agent can set allowOutsideWorkdir in the file-system tool config.',
    details: { path: display, links },
  });
}

async function openOrExplain(path: string, flags: number, display: string, mode?: number): Promise<FileHandle> {
  try {
    return await open(path, flags, mode);
  } catch (error) {
    // The checked real path has no links in it: a link now means a swap, not the user's layout.
    if (systemErrorCode(error) === 'ELOOP') throw pathChanged(display);
    throw fromSystemError(error, display);
  }
}

/** Checks an opened file is a regular file with one link; closes it and throws otherwise. */
async function checkRegularFile(policy: PathPolicy, handle: FileHandle, display: string): Promise<Stats> {
  const stats = await handle.stat();
  let problem: BaseToolError | undefined;
  if (stats.isDirectory()) problem = isDirectory(display);
  else if (!stats.isFile()) problem = new BaseToolError('E_FS_NOT_A_FILE', `${display} is not a regular file (device, socket or pipe).`, { details: { path: display } });
  else if (stats.nlink > 1 && !policy.allowOutsideWorkdir) problem = hardLinked(display, stats.nlink);
  if (problem === undefined) return stats;
  await handle.close();
  throw problem;
}

export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

/** Opens an existing regular file for reading (or reading and writing), verified to be inside. */
export async function openExistingFile(policy: PathPolicy, target: ResolvedPath, access: 'read' | 'read-write'): Promise<OpenedFile> {
  const flags = (access === 'read' ? constants.O_RDONLY : constants.O_RDWR) | SAFE;
  const handle = await openOrExplain(target.real, flags, target.display);
  await verifyInside(policy, handle, target);
  return { handle, stats: await checkRegularFile(policy, handle, target.display) };
}

/**
 * Opens `target` for writing (truncation is the caller's, after the checks), creating it and its
 * missing parent directories inside a verified directory. `created` says whether the file is new.
 */
export async function openFileForWriting(policy: PathPolicy, target: ResolvedPath, append: boolean): Promise<OpenedFile & { created: boolean }> {
  const parent = await openDirectory(policy, { ...target, real: dirname(target.real) }, 'all');
  try {
    const at = pathIn(parent.handle, basename(target.real));
    const flags = constants.O_WRONLY | SAFE | (append ? constants.O_APPEND : 0);
    let created = true;
    let handle: FileHandle;
    try {
      handle = await open(at, flags | constants.O_CREAT | constants.O_EXCL, 0o666);
    } catch (error) {
      if (systemErrorCode(error) !== 'EEXIST') throw error;
      created = false;
      handle = await openOrExplain(at, flags, target.display);
    }
    return { handle, created, stats: await checkRegularFile(policy, handle, target.display) };
  } catch (error) {
    if (BaseToolError.isInstance(error)) throw error;
    if (systemErrorCode(error) === 'ELOOP') throw pathChanged(target.display);
    throw fromSystemError(error, target.display);
  } finally {
    await parent.handle.close();
  }
}

/**
 * Opens the directory at `target.real`, verified to be inside. `create`: `none` (it must exist),
 * `last` (create it if its parent exists) or `all` (create missing parents too, like `mkdir -p`);
 * each created directory is made and opened through its parent's descriptor.
 */
export async function openDirectory(policy: PathPolicy, target: ResolvedPath, create: 'none' | 'last' | 'all'): Promise<{ handle: FileHandle; created: number }> {
  const missing: string[] = [];
  let existing = target.real;
  while (!(await exists(existing)) && dirname(existing) !== existing) {
    missing.unshift(basename(existing));
    existing = dirname(existing);
  }
  if (missing.length > 0 && create === 'none') throw notFound(target.display);
  if (missing.length > 1 && create === 'last') {
    throw new BaseToolError('E_FS_NOT_FOUND', `The parent directory of ${target.display} does not exist.`, { suggestion: 'Pass recursive: true to create the parents too.', details: { path: target.display } });
  }
  let handle: FileHandle;
  try {
    handle = await open(existing, DIRECTORY);
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === 'ELOOP') throw pathChanged(target.display);
    if (code === 'ENOTDIR' && missing.length === 0) throw notADirectory(target.display);
    throw fromSystemError(error, target.display);
  }
  await verifyInside(policy, handle, target);
  try {
    for (const name of missing) {
      await mkdir(pathIn(handle, name)).catch((error: unknown) => {
        if (systemErrorCode(error) !== 'EEXIST') throw error;
      });
      const next = await openOrExplain(pathIn(handle, name), DIRECTORY, target.display);
      await handle.close();
      handle = next;
    }
  } catch (error) {
    await handle.close();
    if (BaseToolError.isInstance(error)) throw error;
    throw fromSystemError(error, target.display);
  }
  return { handle, created: missing.length };
}

/** Opens the subdirectory `name` of an open directory, or undefined when it is gone or no longer a directory. */
export async function openChildDirectory(parent: FileHandle, name: string): Promise<FileHandle | undefined> {
  return open(pathIn(parent, name), DIRECTORY).catch(() => undefined);
}

/** Opens the regular file `name` of an open directory for reading; undefined when it is not one (any more). */
export async function openChildFile(parent: FileHandle, name: string): Promise<OpenedFile | undefined> {
  const handle = await open(pathIn(parent, name), constants.O_RDONLY | SAFE).catch(() => undefined);
  if (handle === undefined) return undefined;
  const stats = await handle.stat();
  if (stats.isFile()) return { handle, stats };
  await handle.close();
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
