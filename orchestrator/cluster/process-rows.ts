/**
 * `goondan ps` on any node shows the whole cluster: every node answers a core NATS request on the
 * processes subject with its rows; the asking node merges them, each tagged with its node.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RootLogger } from '../../shared/logger.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { ProcessRow } from '../http/api-server.ts';
import { messageJson } from './kv-json.ts';

interface NodeRows {
  node: string;
  rows: ProcessRow[];
}

const isNodeRows = compiledValidator<NodeRows>({
  schema: {
    type: 'object',
    required: ['node', 'rows'],
    properties: {
      node: { type: 'string', minLength: 1 },
      rows: { type: 'array', items: { type: 'object', required: ['kind', 'instanceKey', 'status'], properties: { kind: { type: 'string' }, instanceKey: { type: 'string' }, status: { type: 'string' } } } },
    },
  },
});

/** A slow node must not hold `goondan ps` for long … */
const GATHER_WAIT_MS = 1_500;
/** … and once answers stop coming for this long, every live node has answered (a dead one never will). */
const GATHER_STALL_MS = 500;

export function serveProcessRows(nc: NatsConnection, subject: string, nodeId: string, localRows: () => Promise<ProcessRow[]>, logger: RootLogger): Subscription {
  return nc.subscribe(subject, {
    callback: (error, msg) => {
      if (error) return;
      void localRows()
        .then((rows) => msg.respond(JSON.stringify({ node: nodeId, rows: rows.map((row) => ({ ...row, node: nodeId })) } satisfies NodeRows)))
        .catch((failure: unknown) => logger.warn({ err: failure }, 'could not answer a cluster process-table request'));
    },
  });
}

/** Every answering node's rows, tagged, and which nodes answered (one with no process answers too). */
export async function gatherProcessRows(nc: NatsConnection, subject: string, logger: RootLogger): Promise<{ rows: ProcessRow[]; answered: Set<string> } | undefined> {
  try {
    const replies = await nc.requestMany(subject, '', { strategy: 'stall', stall: GATHER_STALL_MS, maxWait: GATHER_WAIT_MS });
    const rows: ProcessRow[] = [];
    const answered = new Set<string>();
    for await (const reply of replies) {
      const value = messageJson(reply);
      if (!isNodeRows(value)) {
        logger.warn('dropped a malformed process-table answer from another node');
        continue;
      }
      answered.add(value.node);
      rows.push(...value.rows.map((row) => ({ ...row, node: value.node })));
    }
    return { rows, answered };
  } catch (error) {
    logger.warn({ err: error }, 'could not gather the cluster process table; showing this node only');
    return undefined;
  }
}
