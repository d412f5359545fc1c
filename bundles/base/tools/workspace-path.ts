/**
 * Where a file or shell tool may go. Relative paths resolve against `ctx.workdir` (tool spec §2.5);
 * the resolved REAL path (symlinks followed, also dangling ones, through the nearest existing
 * ancestor) must lie inside the workdir or one of the extra `roots`, unless the tool's config says
 * `allowOutsideWorkdir: true`. This is the check before opening; the file-system tool also verifies
 * what it actually opened (file-system/verified-open.ts), so a link swapped in between cannot escape.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { BaseToolError, systemErrorCode } from './tool-error.ts';

export interface PathPolicy {
  /** `ctx.workdir` as given (absolute). */
  workdir: string;
  /** Extra absolute directories that may be used besides the workdir (`config.roots`). */
  roots: readonly string[];
  /** `config.allowOutsideWorkdir`: no containment check at all. */
  allowOutsideWorkdir: boolean;
}

export interface ResolvedPath {
  /** Lexically resolved absolute path (what the caller meant). */
  absolute: string;
  /** Same path with every existing symlink resolved. */
  real: string;
  /** What results report: relative to the workdir when inside it, else absolute. */
  display: string;
}

// Linux gives up after 40 links (ELOOP); so do we.
const MAX_SYMLINK_HOPS = 40;

/** realpath of a path that may not exist yet: the nearest existing ancestor decides. */
export function realPathOf(path: string, hops = 0): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT' && systemErrorCode(error) !== 'ENOTDIR') throw error;
  }
  const stat = lstatOrUndefined(path);
  if (stat?.isSymbolicLink()) {
    // A dangling link: writing through it would create its target, so check the target.
    if (hops >= MAX_SYMLINK_HOPS) throw new BaseToolError('E_FS_SYMLINK_LOOP', `Too many symbolic links in ${path}.`);
    return realPathOf(resolve(dirname(path), readlinkSync(path)), hops + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return resolve(realPathOf(parent, hops), basename(path));
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  return child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/** Relative to the workdir when inside it (lexically or for real), else absolute. */
export function displayPath(policy: PathPolicy, absolute: string, real = absolute): string {
  for (const [path, base] of [
    [absolute, resolve(policy.workdir)],
    [real, realWorkdir(policy)],
  ] as const) {
    if (isInside(path, base)) return relative(base, path) || '.';
  }
  return absolute;
}

function realWorkdir(policy: PathPolicy): string {
  try {
    return realpathSync(policy.workdir);
  } catch (error) {
    throw new BaseToolError('E_TOOL_WORKDIR', `The workspace directory ${policy.workdir} does not exist (${systemErrorCode(error) ?? 'error'}).`, {
      suggestion: 'This is a runtime problem, not an argument problem; report it to the operator.',
    });
  }
}

/** Real paths of the directories a path may lie in, or undefined when `allowOutsideWorkdir` lifts the check. */
export function allowedRoots(policy: PathPolicy): string[] | undefined {
  if (policy.allowOutsideWorkdir) return undefined;
  return [realWorkdir(policy), ...policy.roots.map((root) => realPathOf(resolve(root)))];
}

/** Whether the real path `real` lies inside one of `roots` (undefined: anywhere is allowed). */
export function isAllowed(roots: readonly string[] | undefined, real: string): boolean {
  return roots === undefined || roots.some((root) => isInside(real, root));
}

/**
 * Resolves `input` (relative to the workdir, or absolute) and refuses it with
 * `E_FS_OUTSIDE_WORKDIR` when it escapes every allowed root. `what` names the argument in messages.
 */
export function resolveWorkspacePath(policy: PathPolicy, input: string, what = 'path'): ResolvedPath {
  if (input.includes('\0')) throw new BaseToolError('E_FS_INVALID_PATH', `The ${what} contains a NUL character.`);
  const absolute = resolve(policy.workdir, input);
  const real = realPathOf(absolute);
  const resolved = { absolute, real, display: displayPath(policy, absolute, real) };
  const allowed = allowedRoots(policy);
  if (isAllowed(allowed, real)) return resolved;
  const viaLink = real !== absolute && (allowed ?? []).some((root) => isInside(absolute, root));
  throw outsideWorkdir(policy, `The ${what} "${input}" resolves to ${real}, which is outside the workspace ${policy.workdir}${viaLink ? ' (through a symbolic link).' : '.'}`, {
    path: input,
    resolved: real,
    absolute: isAbsolute(input),
  });
}

/** `E_FS_OUTSIDE_WORKDIR` with the message given, the extra roots and what to do. */
export function outsideWorkdir(policy: PathPolicy, message: string, facts: { path: string; resolved: string; absolute: boolean }): BaseToolError {
  return new BaseToolError('E_FS_OUTSIDE_WORKDIR', message + (policy.roots.length > 0 ? ` Allowed extra roots: ${policy.roots.join(', ')}.` : ''), {
    suggestion: facts.absolute
      ? 'Use a path relative to the workspace. To allow another directory, add it to the tool config "roots".'
      : 'Stay inside the workspace (no ".." out of it, no links leading out). To allow another directory, add it to the tool config "roots".',
    details: { path: facts.path, resolved: facts.resolved, workdir: policy.workdir },
  });
}
