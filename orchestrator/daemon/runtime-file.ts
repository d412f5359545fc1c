/**
 * `runtime/<workspaceId>.json`: how CLI commands find a running daemon, and how a second
 * `goondan run` of the same swarm notices the first. A file whose pid is dead is stale.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isProcessAlive } from '../../shared/process-alive.ts';
import { replaceFile } from '../../shared/replace-file.ts';
import type { RuntimeFile } from '../../shared/state-paths.ts';
import { isJsonObject } from '../../shared/types/json.ts';

export function readRuntimeFile(path: string): RuntimeFile | undefined {
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const { pid, apiUrl, startedAt, bundlePath, swarm, workspaceId } = value;
  if (typeof pid !== 'number' || typeof apiUrl !== 'string' || typeof workspaceId !== 'string') return undefined;
  return {
    pid,
    apiUrl,
    workspaceId,
    startedAt: typeof startedAt === 'string' ? startedAt : '',
    bundlePath: typeof bundlePath === 'string' ? bundlePath : '',
    swarm: typeof swarm === 'string' ? swarm : '',
  };
}

/** Written whole (temp + rename): a reader never finds it empty or half written, which it would take for "no daemon". */
export function writeRuntimeFile(path: string, content: RuntimeFile): void {
  mkdirSync(dirname(path), { recursive: true });
  replaceFile(path, `${JSON.stringify(content, null, 2)}\n`);
}

export function removeRuntimeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Every daemon recorded under the state root whose process is still alive. */
export function liveDaemons(stateRoot: string): RuntimeFile[] {
  const dir = join(stateRoot, 'runtime');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => readRuntimeFile(join(dir, n)))
    .filter((f): f is RuntimeFile => f !== undefined && isProcessAlive(f.pid));
}
