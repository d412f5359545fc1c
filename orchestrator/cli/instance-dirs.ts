/**
 * Offline view of instance state for `logs` and `instance`: which workspaces to read (the live
 * daemon's, else all) and each instance directory's identity from its metadata.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { namesIn } from '../../shared/dir-names.ts';
import { instancesDir } from '../../shared/state-paths.ts';
import { isJsonObject } from '../../shared/types/json.ts';
import { liveDaemons } from '../daemon/runtime-file.ts';
import { DurableInbox } from '../delivery/durable-inbox.ts';

export interface InstanceDir {
  workspaceId: string;
  dir: string;
  agentName: string;
  instanceKey: string;
  status?: string;
  updatedAt?: string;
}

export function workspacesToRead(stateRoot: string): string[] {
  const live = liveDaemons(stateRoot);
  if (live.length === 1 && live[0]) return [live[0].workspaceId];
  return namesIn(join(stateRoot, 'workspaces')).sort();
}

export function listInstanceDirs(stateRoot: string, workspaceId: string): InstanceDir[] {
  const root = instancesDir(stateRoot, workspaceId);
  const result: InstanceDir[] = [];
  for (const name of namesIn(root).sort()) {
    const dir = join(root, name);
    const meta = readMetadata(join(dir, 'metadata.json'));
    // The directory name is a lossy slug plus a hash: identity comes from metadata.json, or from the
    // inbox records of an instance that never finished a turn; a directory with neither is skipped.
    const recorded = meta?.agentName !== undefined && meta.instanceKey !== undefined ? undefined : DurableInbox.recordedIdentity(join(dir, 'inbox.jsonl'));
    const agentName = meta?.agentName ?? recorded?.agent;
    const instanceKey = meta?.instanceKey ?? recorded?.instanceKey;
    if (agentName === undefined || instanceKey === undefined) continue;
    result.push({
      workspaceId,
      dir,
      agentName,
      instanceKey,
      ...(meta?.status ? { status: meta.status } : {}),
      ...(meta?.updatedAt ? { updatedAt: meta.updatedAt } : {}),
    });
  }
  return result;
}

export function runtimeEventsFile(instance: InstanceDir): string {
  return join(instance.dir, 'messages', 'runtime-events.jsonl');
}

/** An instance's metadata.json, the fields that are strings; undefined when it cannot be read. */
export function readMetadata(path: string): { agentName?: string; instanceKey?: string; status?: string; updatedAt?: string } | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!isJsonObject(value)) return undefined;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const meta: { agentName?: string; instanceKey?: string; status?: string; updatedAt?: string } = {};
    const agentName = str(value.agentName);
    const instanceKey = str(value.instanceKey);
    const status = str(value.status);
    const updatedAt = str(value.updatedAt);
    if (agentName) meta.agentName = agentName;
    if (instanceKey !== undefined) meta.instanceKey = instanceKey;
    if (status) meta.status = status;
    if (updatedAt) meta.updatedAt = updatedAt;
    return meta;
  } catch {
    return undefined;
  }
}
