/**
 * `file-system__*`: read, write, edit, list, mkdir, glob, grep inside the agent's workspace.
 * Relative paths resolve against `ctx.workdir` (tool spec §2.5); paths that leave it — through
 * `..`, an absolute path or a symbolic link — are refused unless the config allows extra `roots`.
 * What is opened is verified after opening (verified-open.ts), so racing link swaps and hard links
 * to outside files do not escape either. Results report paths relative to the workspace.
 * `evaluatePolicy` shows the diff a write or edit would make to the person asked to approve it.
 */
import type { ToolHandler, ToolPolicyEvaluator } from '../../../../shared/types/index.ts';
import { argsReader } from '../tool-input.ts';
import { editFile, type EditArgs } from './edit-file.ts';
import { fileSystemSettings } from './fs-config.ts';
import { globFiles, type GlobArgs } from './glob-files.ts';
import { grepFiles, type GrepArgs } from './grep-files.ts';
import { listDirectory, type ListArgs } from './list-directory.ts';
import { makeDirectory, type MkdirArgs } from './make-directory.ts';
import { readFile, type ReadArgs } from './read-file.ts';
import { writeFile, type WriteArgs } from './write-file.ts';
import { writePreview } from './write-preview.ts';

const readArgs = {
  read: argsReader<ReadArgs>(import.meta.dir, 'read'),
  write: argsReader<WriteArgs>(import.meta.dir, 'write'),
  edit: argsReader<EditArgs>(import.meta.dir, 'edit'),
  list: argsReader<ListArgs>(import.meta.dir, 'list'),
  mkdir: argsReader<MkdirArgs>(import.meta.dir, 'mkdir'),
  glob: argsReader<GlobArgs>(import.meta.dir, 'glob'),
  grep: argsReader<GrepArgs>(import.meta.dir, 'grep'),
};

export const handlers: Record<string, ToolHandler> = {
  read: async (ctx, input) => readFile(fileSystemSettings(ctx.workdir, ctx.config), readArgs.read(input)),
  write: async (ctx, input) => writeFile(fileSystemSettings(ctx.workdir, ctx.config), readArgs.write(input)),
  edit: async (ctx, input) => editFile(fileSystemSettings(ctx.workdir, ctx.config), readArgs.edit(input)),
  list: async (ctx, input) => listDirectory(fileSystemSettings(ctx.workdir, ctx.config), readArgs.list(input), ctx.signal),
  mkdir: async (ctx, input) => makeDirectory(fileSystemSettings(ctx.workdir, ctx.config), readArgs.mkdir(input)),
  glob: async (ctx, input) => globFiles(fileSystemSettings(ctx.workdir, ctx.config), readArgs.glob(input), ctx.signal),
  grep: async (ctx, input) => grepFiles(fileSystemSettings(ctx.workdir, ctx.config), readArgs.grep(input), ctx.signal),
};

/** seed 004 §6.2: the diff of a write / edit, for the approval prompt (no verdict of its own). */
export const evaluatePolicy: ToolPolicyEvaluator = (args, ctx) => (ctx.exportName === 'write' || ctx.exportName === 'edit' ? writePreview(args, ctx) : undefined);
