/**
 * Scatter/gather over core NATS: every live node answers one request with its own items (process
 * rows, pending approvals); the asking node merges them, each tagged with the node it came from.
 * The asking node answers too, so its own answer shows the gathering went round; without it (NATS
 * away) the caller shows its own items alone.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { messageJson } from './kv-json.ts';

/** A slow node must not hold the answer for long … */
const GATHER_WAIT_MS = 1_500;
/** … and, when the caller does not say how many nodes are live, once answers stop coming for this long every node is taken to have answered. */
const GATHER_STALL_MS = 500;

interface NodeItems {
  node: string;
  items: JsonObject[];
}

const isNodeItems = compiledValidator<NodeItems>({
  schema: { type: 'object', required: ['node', 'items'], properties: { node: { type: 'string', minLength: 1 }, items: { type: 'array', items: { type: 'object' } } } },
});

/** Answers `subject` with this node's items (for the request's body, when it has one). */
export function serveNodeItems(nc: NatsConnection, subject: string, nodeId: string, items: (request: unknown) => Promise<JsonObject[]>, logger: RootLogger): Subscription {
  return nc.subscribe(subject, {
    callback: (error, msg) => {
      if (error) return;
      void items(messageJson(msg))
        .then((found) => msg.respond(JSON.stringify({ node: nodeId, items: found } satisfies NodeItems)))
        .catch((failure: unknown) => logger.warn({ err: failure, subject }, 'could not answer a cluster gathering'));
    },
  });
}

/** What a gathering asks with, and how many answers it waits for. */
export interface GatherOptions {
  /** The request's body (none: an empty one). */
  request?: JsonObject;
  /**
   * The nodes live now (this one is added): the gathering waits for each one's answer, up to
   * GATHER_WAIT_MS, instead of ending at the first silence, which left out a node slow to answer.
   */
  members?: readonly string[];
}

/**
 * Every answering node's items that `accepts` takes, each with its `node`, and the members that
 * did not answer; undefined when this node's own answer did not come back (the gathering did not
 * go round).
 */
export async function gatherNodeAnswers<T extends JsonObject>(
  nc: NatsConnection,
  subject: string,
  nodeId: string,
  accepts: (item: JsonObject) => item is T,
  logger: RootLogger,
  options: GatherOptions = {},
): Promise<{ items: Array<T & { node: string }>; silent: string[] } | undefined> {
  const { request } = options;
  const members = options.members === undefined ? undefined : new Set([...options.members, nodeId]);
  try {
    const until = members === undefined ? { strategy: 'stall' as const, stall: GATHER_STALL_MS } : { strategy: 'count' as const, maxMessages: members.size };
    const replies = await nc.requestMany(subject, request === undefined ? '' : JSON.stringify(request), { ...until, maxWait: GATHER_WAIT_MS });
    const items: Array<T & { node: string }> = [];
    const answered = new Set<string>();
    for await (const reply of replies) {
      const value = messageJson(reply);
      if (!isNodeItems(value)) {
        logger.warn({ subject }, 'dropped a malformed answer from another node');
        continue;
      }
      answered.add(value.node);
      for (const item of value.items) if (accepts(item)) items.push({ ...item, node: value.node });
    }
    if (!answered.has(nodeId)) return undefined;
    return { items, silent: [...(members ?? [])].filter((node) => !answered.has(node)).sort() };
  } catch (error) {
    logger.warn({ err: error, subject }, 'could not gather from the cluster; showing this node alone');
    return undefined;
  }
}
