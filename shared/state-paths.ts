/**
 * Where state lives (ARCHITECTURE §3): never inside the bundle. One function per path so the
 * orchestrator, the agent processes and the CLI always agree.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `--state-root` > `$GOONDAN_STATE_ROOT` > `~/.goondan`. */
export function resolveStateRoot(flag?: string, env: Record<string, string | undefined> = process.env): string {
  if (flag) return resolve(flag);
  if (env.GOONDAN_STATE_ROOT) return resolve(env.GOONDAN_STATE_ROOT);
  return join(homedir(), '.goondan');
}

/** Deterministic slug of the swarm instance key (SPEC.md §7): `[a-z0-9._-]`, ≤128, else `default`. */
export function workspaceIdFor(swarmInstanceKey: string): string {
  const slug = swarmInstanceKey
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 128)
    .replace(/-+$/, '');
  return slug === '' ? 'default' : slug;
}

/** Characters of a key kept in its directory name; the hash, not the slug, makes the name unique. */
const KEY_SLUG_MAX = 48;

/**
 * `<agent>--<key slug>.<hash>`: a readable slug (anything outside `[A-Za-z0-9_-]` becomes `-`; no
 * `:` for Windows) plus the first 12 hex digits of sha256(agent NUL key), so that keys whose slugs
 * agree (`alice.x` / `alice-x`, `k/1` / `k.1`, two non-ASCII keys of one length) never share state.
 */
export function instanceDirName(agentName: string, instanceKey: string): string {
  // Bun's hasher, not node:crypto: that module costs every agent process ~5 MB of RSS.
  const hash = new Bun.CryptoHasher('sha256').update(`${agentName}\0${instanceKey}`).digest('hex').slice(0, 12);
  return `${slugOf(agentName)}--${slugOf(instanceKey).slice(0, KEY_SLUG_MAX)}.${hash}`;
}

/** The directory name before keys were hashed (lossy); only the migration of old state uses it. */
export function legacyInstanceDirName(agentName: string, instanceKey: string): string {
  return `${slugOf(agentName)}--${slugOf(instanceKey)}`;
}

/** Whether a directory name has the current (hashed) form. */
export function isHashedInstanceDirName(name: string): boolean {
  return /^[A-Za-z0-9_-]*--[A-Za-z0-9_-]*\.[0-9a-f]{12}$/.test(name);
}

function slugOf(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '-');
}

export function instancesDir(stateRoot: string, workspaceId: string): string {
  return join(workspaceDir(stateRoot, workspaceId), 'instances');
}

export function workspaceDir(stateRoot: string, workspaceId: string): string {
  return join(stateRoot, 'workspaces', workspaceId);
}

export interface InstancePaths {
  root: string;
  messagesDir: string;
  baseMessages: string;
  /** Replacements folded after `baseMessages` (a long conversation's in-place edits). */
  baseEdits: string;
  messageEvents: string;
  runtimeEvents: string;
  /** tool.call.started / tool.call.finished of the running turn (issue 10). */
  toolJournal: string;
  /** Replies to async requests not yet in the conversation (issue 10). */
  asyncReplies: string;
  inbox: string;
  extensionsDir: string;
  metadata: string;
  /** The tools' `ctx.workdir`. */
  workdir: string;
}

/** A new base being written by a rewrite (message-store.ts), the base once its events' rename committed it. */
export function rewritingBase(basePath: string): string {
  return `${basePath}.rewrite`;
}

/** The events a base rewrite took in, renamed away: the rewrite's commit point (message-store.ts). */
export function foldedEvents(eventsPath: string): string {
  return `${eventsPath}.folded`;
}

export function instancePaths(stateRoot: string, workspaceId: string, agentName: string, instanceKey: string): InstancePaths {
  const root = join(instancesDir(stateRoot, workspaceId), instanceDirName(agentName, instanceKey));
  const messagesDir = join(root, 'messages');
  return {
    root,
    messagesDir,
    baseMessages: join(messagesDir, 'base.jsonl'),
    baseEdits: join(messagesDir, 'base-edits.jsonl'),
    messageEvents: join(messagesDir, 'events.jsonl'),
    runtimeEvents: join(messagesDir, 'runtime-events.jsonl'),
    toolJournal: join(messagesDir, 'tool-journal.jsonl'),
    asyncReplies: join(messagesDir, 'async-replies.jsonl'),
    inbox: join(root, 'inbox.jsonl'),
    extensionsDir: join(root, 'extensions'),
    metadata: join(root, 'metadata.json'),
    workdir: join(root, 'workspace'),
  };
}

/**
 * `runtime/api-token`: the credential of every daemon under this state root (mode 0600), read by
 * the CLI and the studio. Tools never see it: the sandbox hides the state root.
 */
export function apiTokenPath(stateRoot: string): string {
  return join(stateRoot, 'runtime', 'api-token');
}

/** `runtime/<workspaceId>.json`: how CLI commands find a running daemon. */
export function runtimeFilePath(stateRoot: string, workspaceId: string): string {
  return join(stateRoot, 'runtime', `${workspaceId}.json`);
}

export interface RuntimeFile {
  pid: number;
  apiUrl: string;
  startedAt: string;
  bundlePath: string;
  swarm: string;
  workspaceId: string;
}
