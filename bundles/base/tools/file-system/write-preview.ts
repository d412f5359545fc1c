/**
 * `evaluatePolicy` of file-system (seed 004 §6.2): no opinion on whether a call may run — the
 * permission policy decides that — but a preview for the person asked to approve one: the unified
 * diff a `write` (or `edit`) would make to the file. A path the handler would refuse, a binary or
 * very large file gets no diff; the handler reports those itself.
 */
import type { JsonObject, ToolPolicyContext, ToolPolicyVerdict } from '../../../../shared/types/index.ts';
import { type PathPolicy, type ResolvedPath, resolveWorkspacePath } from '../workspace-path.ts';
import { fileSystemSettings } from './fs-config.ts';
import { unifiedDiff } from './line-diff.ts';
import { decodeText } from './text-detection.ts';
import { openExistingFile } from './verified-open.ts';

/** Files larger than this are not read for a preview. */
const MAX_PREVIEW_FILE_BYTES = 1_000_000;

export async function writePreview(args: JsonObject, ctx: ToolPolicyContext): Promise<ToolPolicyVerdict | undefined> {
  if (typeof args.path !== 'string') return undefined;
  try {
    const settings = fileSystemSettings(ctx.workdir, ctx.config);
    const target = resolveWorkspacePath(settings.policy, args.path);
    const current = await currentText(settings.policy, target);
    if (current === null) return undefined;
    if (ctx.exportName === 'write' && typeof args.content === 'string') {
      const after = args.append === true ? `${current ?? ''}${args.content}` : args.content;
      return { preview: `${current === undefined ? '(new file)\n' : ''}${unifiedDiff(target.display, current ?? '', after)}` };
    }
    if (ctx.exportName === 'edit' && typeof args.oldText === 'string' && typeof args.newText === 'string' && current !== undefined && args.oldText !== '' && current.includes(args.oldText)) {
      const after = args.replaceAll === true ? current.split(args.oldText).join(args.newText) : current.replace(args.oldText, () => String(args.newText));
      return { preview: unifiedDiff(target.display, current, after) };
    }
  } catch {
    // The handler refuses such a call with the reason; a preview has nothing to show.
  }
  return undefined;
}

/** The file's text; undefined when it does not exist; null when it cannot be previewed. */
async function currentText(policy: PathPolicy, target: ResolvedPath): Promise<string | undefined | null> {
  let opened;
  try {
    opened = await openExistingFile(policy, target, 'read');
  } catch (error) {
    return typeof error === 'object' && error !== null && 'code' in error && error.code === 'E_FS_NOT_FOUND' ? undefined : null;
  }
  try {
    if (opened.stats.size > MAX_PREVIEW_FILE_BYTES) return null;
    const decoded = decodeText(new Uint8Array(await opened.handle.readFile()));
    return decoded.text ? decoded.content : null;
  } finally {
    await opened.handle.close();
  }
}
