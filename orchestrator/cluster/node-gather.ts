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
/** … and once answers stop coming for this long, every live node has answered (a dead one never will). */
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

/**
 * Every answering node's items that `accepts` takes, each with its `node`; undefined when this
 * node's own answer did not come back (the gathering did not go round).
 */
export async function gatherNodeItems<T extends JsonObject>(
  nc: NatsConnection,
  subject: string,
  nodeId: string,
  accepts: (item: JsonObject) => item is T,
  logger: RootLogger,
  request: JsonObject | undefined = undefined,
): Promise<Array<T & { node: string }> | undefined> {
  try {
    const replies = await nc.requestMany(subject, request === undefined ? '' : JSON.stringify(request), { strategy: 'stall', stall: GATHER_STALL_MS, maxWait: GATHER_WAIT_MS });
    const out: Array<T & { node: string }> = [];
    let answeredHere = false;
    for await (const reply of replies) {
      const value = messageJson(reply);
      if (!isNodeItems(value)) {
        logger.warn({ subject }, 'dropped a malformed answer from another node');
        continue;
      }
      answeredHere ||= value.node === nodeId;
      for (const item of value.items) if (accepts(item)) out.push({ ...item, node: value.node });
    }
    return answeredHere ? out : undefined;
  } catch (error) {
    logger.warn({ err: error, subject }, 'could not gather from the cluster; showing this node alone');
    return undefined;
  }
}
