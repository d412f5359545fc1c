/**
 * State directories named before instance keys were hashed (`<agent>--<slug>`) are renamed to the
 * injective name (`instanceDirName`) on daemon start. The owner is read from the directory's
 * `metadata.json`, else from its `inbox.jsonl` records. When several keys collided in one old
 * directory, it stays with the key its metadata names; the other keys' unacknowledged events move
 * to their own new directories (their share of the mixed message history cannot be told apart).
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cutTornTail, warnTornTail } from '../../shared/durability/line-boundary.ts';
import { instanceDirName, instancesDir, isHashedInstanceDirName, legacyInstanceDirName } from '../../shared/state-paths.ts';
import { isJsonObject } from '../../shared/types/json.ts';
import { parseInboxLine } from './durable-inbox.ts';

export interface InstanceIdentity {
  agent: string;
  instanceKey: string;
}

export interface MigrationReport {
  renamed: Array<InstanceIdentity & { from: string; to: string }>;
  /** Old directories left in place, with the reason. */
  left: Array<{ dir: string; reason: string }>;
  /** Pending events of a colliding key, moved out of the directory it shared. */
  movedEvents: Array<InstanceIdentity & { eventId: string }>;
}

/** Only the object-first form is used, so a test can pass a plain recorder. */
interface MigrationLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export function migrateInstanceDirs(stateRoot: string, workspaceId: string, logger?: MigrationLogger): MigrationReport {
  const report: MigrationReport = { renamed: [], left: [], movedEvents: [] };
  const root = instancesDir(stateRoot, workspaceId);
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return report;
  }
  for (const name of names) {
    const dir = join(root, name);
    if (isHashedInstanceDirName(name) || !isDirectory(dir)) continue;
    const inbox = readInbox(join(dir, 'inbox.jsonl'));
    const owner = ownerOf(name, readMetadataIdentity(join(dir, 'metadata.json')), inbox.identities);
    if (typeof owner === 'string') {
      report.left.push({ dir, reason: owner });
      logger?.warn({ dir, reason: owner }, 'left an old-style instance directory in place');
      continue;
    }
    const target = join(root, instanceDirName(owner.agent, owner.instanceKey));
    if (existsSync(target)) {
      const reason = `${target} already exists`;
      report.left.push({ dir, reason });
      logger?.warn({ dir, target }, 'left an old-style instance directory in place: its new name is taken');
      continue;
    }
    renameSync(dir, target);
    report.renamed.push({ ...owner, from: dir, to: target });
    logger?.info({ from: dir, to: target, agent: owner.agent, instanceKey: owner.instanceKey }, 'renamed an instance directory to its injective name');

    const others = inbox.identities.filter((identity) => !sameIdentity(identity, owner));
    if (others.length === 0) continue;
    for (const other of others) {
      const lines = inbox.pending.filter((entry) => sameIdentity(entry.identity, other));
      if (lines.length === 0) continue;
      const otherDir = join(root, instanceDirName(other.agent, other.instanceKey));
      mkdirSync(otherDir, { recursive: true });
      const otherInbox = join(otherDir, 'inbox.jsonl');
      // Its new directory may hold an inbox already, torn by a crash: these lines must not join its last one.
      cutTornTail(otherInbox, logger ? warnTornTail(logger) : undefined);
      appendFileSync(otherInbox, lines.map((entry) => `${entry.raw}\n`).join(''));
      for (const entry of lines) report.movedEvents.push({ ...other, eventId: entry.eventId });
    }
    const kept = inbox.pending.filter((entry) => sameIdentity(entry.identity, owner));
    writeFileSync(join(target, 'inbox.jsonl'), kept.map((entry) => `${entry.raw}\n`).join(''));
    logger?.warn(
      { dir: target, owner, others },
      'several instance keys shared one old state directory: it now belongs to the key in its metadata; the others keep their pending events but not their share of the message history',
    );
  }
  return report;
}

/** The directory's owner, or why it cannot be decided. */
function ownerOf(name: string, metadata: InstanceIdentity | undefined, recorded: InstanceIdentity[]): InstanceIdentity | string {
  const belongsHere = (identity: InstanceIdentity) => legacyInstanceDirName(identity.agent, identity.instanceKey) === name;
  if (metadata !== undefined) return belongsHere(metadata) ? metadata : `metadata.json names ${describeIdentity(metadata)}, whose old directory name is not ${name}`;
  const candidates = recorded.filter(belongsHere);
  if (candidates.length === 1 && candidates[0]) return candidates[0];
  if (candidates.length === 0) return 'no agent and instance key are recorded (no metadata.json, no inbox records)';
  return `several instance keys are recorded (${candidates.map(describeIdentity).join(', ')}) and no metadata.json says whose directory it is`;
}

interface PendingLine {
  identity: InstanceIdentity;
  eventId: string;
  raw: string;
}

/** Distinct identities in record order, and the put lines still unacknowledged. */
function readInbox(path: string): { identities: InstanceIdentity[]; pending: PendingLine[] } {
  const identities: InstanceIdentity[] = [];
  const pending = new Map<string, PendingLine>();
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { identities, pending: [] };
  }
  for (const raw of text.split('\n')) {
    const line = parseInboxLine(raw);
    if (line?.op === 'ack') pending.delete(line.eventId);
    if (line?.op !== 'put') continue;
    const identity = { agent: line.agent, instanceKey: line.instanceKey };
    if (!identities.some((known) => sameIdentity(known, identity))) identities.push(identity);
    pending.set(line.event.id, { identity, eventId: line.event.id, raw });
  }
  return { identities, pending: [...pending.values()] };
}

function readMetadataIdentity(path: string): InstanceIdentity | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (isJsonObject(value) && typeof value.agentName === 'string' && typeof value.instanceKey === 'string') {
      return { agent: value.agentName, instanceKey: value.instanceKey };
    }
  } catch {
    // missing or damaged: the inbox decides
  }
  return undefined;
}

function sameIdentity(a: InstanceIdentity, b: InstanceIdentity): boolean {
  return a.agent === b.agent && a.instanceKey === b.instanceKey;
}

function describeIdentity(identity: InstanceIdentity): string {
  return `${identity.agent} @ ${JSON.stringify(identity.instanceKey)}`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
