/**
 * Cluster mode: the studio's instance list, an instance's conversation and the traces on any node.
 * Each node read only the instance directories it holds, so behind a load balancer the studio showed
 * a part of the instances, a conversation only on the node that ran it, and of a trace across nodes
 * the part that ran where it was asked. Now they are gathered from every node (node-gather.ts). A
 * node that ran an instance before a takeover may still hold an older copy of it: the copy updated
 * last wins. A trace's parts merge: its root is the part that started first.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { GoondanError } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import type { InstanceEntry, LocalConversation, OtherNodesState } from '../inspect/inspect-routes.ts';
import type { TraceSummary } from '../inspect/runtime-event-log.ts';
import { validateRuntimeEvent } from '../../shared/ipc/ipc-schemas.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { gatherNodeAnswers, serveNodeItems } from './node-gather.ts';

const isEntry = compiledValidator<InstanceEntry>({
  options: { strict: false },
  schema: { type: 'object', required: ['instanceKey', 'agent'], properties: { instanceKey: { type: 'string' }, agent: { type: 'string' } } },
});
const isConversation = compiledValidator<LocalConversation>({
  options: { strict: false },
  schema: { type: 'object', required: ['messages'], properties: { messages: { type: 'array' }, updatedAt: { type: 'string' } } },
});
const isSummary = compiledValidator<TraceSummary>({
  options: { strict: false },
  schema: { type: 'object', required: ['traceId', 'startedAt', 'agent', 'instanceKey', 'agents', 'status', 'turns'], properties: { traceId: { type: 'string' }, startedAt: { type: 'string' }, agents: { type: 'array', items: { type: 'string' } }, status: { enum: ['running', 'ok', 'error'] }, turns: { type: 'number' } } },
});
const isTraceQuestion = compiledValidator<{ traceId: string; limit?: number }>({
  schema: { type: 'object', properties: { traceId: { type: 'string' }, limit: { type: 'number' } } },
});
const isQuestion = compiledValidator<{ agent: string; instanceKey: string }>({
  schema: { type: 'object', required: ['agent', 'instanceKey'], properties: { agent: { type: 'string' }, instanceKey: { type: 'string' } } },
});

export interface ClusterInspectSubjects {
  instances: string;
  conversation: string;
  traces: string;
  traceEvents: string;
}

/** What a node answers from its own files. */
export interface LocalInspect {
  instances(): InstanceEntry[];
  conversation(agent: string, instanceKey: string): LocalConversation | undefined;
  traces(limit: number): TraceSummary[];
  traceEvents(traceId: string): RuntimeEvent[];
}

export class ClusterInspect implements OtherNodesState {
  constructor(
    private readonly nc: NatsConnection,
    private readonly subjects: ClusterInspectSubjects,
    private readonly nodeId: string,
    private readonly logger: RootLogger,
    /** The nodes live now (membership.ts), each expected to answer. */
    private readonly liveNodes: () => readonly string[],
  ) {}

  async instances(local: () => InstanceEntry[]): Promise<InstanceEntry[]> {
    const gathered = (await gatherNodeAnswers(this.nc, this.subjects.instances, this.nodeId, (item: JsonObject): item is InstanceEntry => isEntry(item), this.logger, { members: this.liveNodes() }))?.items;
    if (!gathered) return local();
    const latest = new Map<string, InstanceEntry>();
    for (const { node: _from, ...entry } of gathered) {
      const key = `${entry.instanceKey}\u0000${entry.agent}`;
      const known = latest.get(key);
      if (!known || updatedAt(entry) > updatedAt(known)) latest.set(key, entry);
    }
    return [...latest.values()];
  }

  /**
   * The newest copy of an instance's conversation on any node; undefined when every live node said
   * it has none. Throws CLUSTER_UNAVAILABLE when a live node did not answer: a 404 then was wrong.
   */
  async conversation(agent: string, instanceKey: string, local: () => LocalConversation | undefined): Promise<LocalConversation | undefined> {
    const accepts = (item: JsonObject): item is LocalConversation => isConversation(item);
    const gathered = await gatherNodeAnswers(this.nc, this.subjects.conversation, this.nodeId, accepts, this.logger, { request: { agent, instanceKey }, members: this.liveNodes() });
    if (!gathered) return local();
    let newest: LocalConversation | undefined;
    for (const { node: _from, ...copy } of gathered.items) if (!newest || updatedAt(copy) > updatedAt(newest)) newest = copy;
    const { silent } = gathered;
    if (newest || silent.length === 0) return newest;
    throw new GoondanError('CLUSTER_UNAVAILABLE', 'system', `no node that answered holds instance '${instanceKey}' of agent '${agent}'; node${silent.length > 1 ? 's' : ''} ${silent.join(', ')} did not answer`, {
      suggestion: 'retry shortly (the node may be busy, restarting, or its partitions being taken over)',
      details: { agent, instanceKey, silent },
    });
  }

  async traces(limit: number, local: () => TraceSummary[]): Promise<TraceSummary[]> {
    const gathered = (await gatherNodeAnswers(this.nc, this.subjects.traces, this.nodeId, (item: JsonObject): item is TraceSummary & JsonObject => isSummary(item), this.logger, { request: { limit }, members: this.liveNodes() }))?.items;
    if (!gathered) return local();
    const byTrace = new Map<string, TraceSummary>();
    for (const { node: _from, ...part } of gathered) {
      const known = byTrace.get(part.traceId);
      byTrace.set(part.traceId, known ? mergeParts(known, part) : part);
    }
    return [...byTrace.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt)).slice(0, limit);
  }

  async traceEvents(traceId: string, local: () => RuntimeEvent[]): Promise<RuntimeEvent[]> {
    const gathered = (await gatherNodeAnswers(this.nc, this.subjects.traceEvents, this.nodeId, (item: JsonObject): item is RuntimeEvent & JsonObject => validateRuntimeEvent(item).ok, this.logger, { request: { traceId }, members: this.liveNodes() }))?.items;
    if (!gathered) return local();
    return gathered.map(({ node: _from, ...event }) => event as RuntimeEvent).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  }

  /** Answers with what this node's own files hold. */
  serve(local: LocalInspect): Subscription[] {
    // Read from JSON files and sent on as JSON: typed records, JSON by construction.
    const asJson = (items: readonly object[]) => items as unknown as JsonObject[];
    return [
      serveNodeItems(this.nc, this.subjects.instances, this.nodeId, async () => local.instances(), this.logger),
      serveNodeItems(
        this.nc,
        this.subjects.conversation,
        this.nodeId,
        async (request) => {
          const copy = isQuestion(request) ? local.conversation(request.agent, request.instanceKey) : undefined;
          return copy ? [copy] : [];
        },
        this.logger,
      ),
      serveNodeItems(this.nc, this.subjects.traces, this.nodeId, async (request) => asJson(local.traces(isTraceQuestion(request) && request.limit !== undefined ? request.limit : 50)), this.logger),
      serveNodeItems(this.nc, this.subjects.traceEvents, this.nodeId, async (request) => asJson(isTraceQuestion(request) && request.traceId ? local.traceEvents(request.traceId) : []), this.logger),
    ];
  }
}

/** Two nodes' parts of one trace: the root is the part that started first; agents, turns and a failure add up. */
function mergeParts(a: TraceSummary, b: TraceSummary): TraceSummary {
  const [root, other] = a.startedAt <= b.startedAt ? [a, b] : [b, a];
  return {
    ...root,
    agents: [...new Set([...root.agents, ...other.agents])],
    turns: root.turns + other.turns,
    status: root.status === 'error' || other.status === 'error' ? 'error' : root.status,
  };
}

function updatedAt(value: { updatedAt?: string | null }): string {
  return value.updatedAt ?? '';
}
