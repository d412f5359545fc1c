/**
 * Writes one file of a `bun build --bytecode` output where processes load it from: its bytecode
 * (`<path>.jsc`) first, then its code. Bun loads the `.jsc` beside a file when its hash matches and
 * parses the source otherwise, and readers find a build by its code: so none finds code whose
 * bytecode is still to come. Each file is replaced whole (shared/replace-file.ts).
 */
import type { BuildArtifact } from 'bun';
import { replaceFile } from '../../shared/replace-file.ts';

/** Bun's name for a file's bytecode: the file's path and this. */
export const BYTECODE_SUFFIX = '.jsc';

export async function writeBytecodeBuild(path: string, code: BuildArtifact, bytecode: BuildArtifact | undefined): Promise<void> {
  if (bytecode) replaceFile(`${path}${BYTECODE_SUFFIX}`, new Uint8Array(await bytecode.arrayBuffer()));
  replaceFile(path, await code.text());
}
