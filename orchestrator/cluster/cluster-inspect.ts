/**
 * Cluster mode: the studio's instance list and an instance's conversation on any node. Each node
 * read only the instance directories it holds, so behind a load balancer the studio showed a part
 * of the instances, and a conversation only on the node that ran it. Now both are gathered from
 * every node (node-gather.ts). A node that ran an instance before a takeover may still hold an older
 * copy of it: the copy updated last wins.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { InstanceEntry, LocalConversation, OtherNodesState } from '../inspect/inspect-routes.ts';
import { gatherNodeItems, serveNodeItems } from './node-gather.ts';

const isEntry = compiledValidator<InstanceEntry>({
  options: { strict: false },
  schema: { type: 'object', required: ['instanceKey', 'agent'], properties: { instanceKey: { type: 'string' }, agent: { type: 'string' } } },
});
const isConversation = compiledValidator<LocalConversation>({
  options: { strict: false },
  schema: { type: 'object', required: ['messages'], properties: { messages: { type: 'array' }, updatedAt: { type: 'string' } } },
});
const isQuestion = compiledValidator<{ agent: string; instanceKey: string }>({
  schema: { type: 'object', required: ['agent', 'instanceKey'], properties: { agent: { type: 'string' }, instanceKey: { type: 'string' } } },
});

export interface ClusterInspectSubjects {
  instances: string;
  conversation: string;
}

export class ClusterInspect implements OtherNodesState {
  constructor(
    private readonly nc: NatsConnection,
    private readonly subjects: ClusterInspectSubjects,
    private readonly nodeId: string,
    private readonly logger: RootLogger,
  ) {}

  async instances(local: () => InstanceEntry[]): Promise<InstanceEntry[]> {
    const gathered = await gatherNodeItems(this.nc, this.subjects.instances, this.nodeId, (item: JsonObject): item is InstanceEntry => isEntry(item), this.logger);
    if (!gathered) return local();
    const latest = new Map<string, InstanceEntry>();
    for (const { node: _from, ...entry } of gathered) {
      const key = `${entry.instanceKey}\u0000${entry.agent}`;
      const known = latest.get(key);
      if (!known || updatedAt(entry) > updatedAt(known)) latest.set(key, entry);
    }
    return [...latest.values()];
  }

  async conversation(agent: string, instanceKey: string, local: () => LocalConversation | undefined): Promise<LocalConversation | undefined> {
    const gathered = await gatherNodeItems(this.nc, this.subjects.conversation, this.nodeId, (item: JsonObject): item is LocalConversation => isConversation(item), this.logger, { agent, instanceKey });
    if (!gathered) return local();
    let newest: LocalConversation | undefined;
    for (const { node: _from, ...copy } of gathered) if (!newest || updatedAt(copy) > updatedAt(newest)) newest = copy;
    return newest;
  }

  /** Answers with this node's instances, and its copy of a conversation when it holds one. */
  serve(localInstances: () => InstanceEntry[], localConversation: (agent: string, instanceKey: string) => LocalConversation | undefined): Subscription[] {
    return [
      serveNodeItems(this.nc, this.subjects.instances, this.nodeId, async () => localInstances(), this.logger),
      serveNodeItems(
        this.nc,
        this.subjects.conversation,
        this.nodeId,
        async (request) => {
          const copy = isQuestion(request) ? localConversation(request.agent, request.instanceKey) : undefined;
          return copy ? [copy] : [];
        },
        this.logger,
      ),
    ];
  }
}

function updatedAt(value: { updatedAt?: string | null }): string {
  return value.updatedAt ?? '';
}
