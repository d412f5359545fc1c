/**
 * `goondan ps` on any node shows the whole cluster: every node answers a core NATS request on the
 * processes subject with its rows; the asking node merges them, each tagged with its node
 * (node-gather.ts).
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { ProcessRow } from '../http/api-server.ts';
import { gatherNodeAnswers, serveNodeItems } from './node-gather.ts';

const isRow = compiledValidator<ProcessRow>({
  options: { strict: false },
  schema: { type: 'object', required: ['kind', 'instanceKey', 'status'], properties: { kind: { type: 'string' }, instanceKey: { type: 'string' }, status: { type: 'string' } } },
});

export function serveProcessRows(nc: NatsConnection, subject: string, nodeId: string, localRows: () => Promise<ProcessRow[]>, logger: RootLogger): Subscription {
  return serveNodeItems(nc, subject, nodeId, async () => (await localRows()).map((row) => ({ ...row, node: nodeId })), logger);
}

/** The whole cluster's process table (each node's rows, tagged; the `members`' answers waited for); this node's alone when the gathering did not go round. */
export async function clusterProcessRows(nc: NatsConnection, subject: string, nodeId: string, localRows: () => Promise<ProcessRow[]>, logger: RootLogger, members: readonly string[]): Promise<ProcessRow[]> {
  const gathered = (await gatherNodeAnswers(nc, subject, nodeId, (item: JsonObject): item is ProcessRow => isRow(item), logger, { members }))?.items;
  return gathered ?? (await localRows()).map((row) => ({ ...row, node: nodeId }));
}
