/**
 * `instance delete` and `restart --fresh` on this node: stop the instance's processes and remove
 * their state. Its queued events go with it: each is given up (INSTANCE_DELETED, in the ledger and
 * to whoever waits for it) rather than left to wait for a start that would find a new, empty
 * instance — unless `keepQueued` (`restart --fresh`): then the inbox stays, and the events it holds
 * run in the new conversation, their callers still waiting for them.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runtimeError } from '../../shared/errors/index.ts';
import { type AgentId, agentKey } from '../../shared/ipc/agent-id.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import type { ApprovalBroker } from '../approvals/approval-broker.ts';
import type { Delivery } from '../delivery/delivery.ts';
import type { Supervisor } from '../process/supervisor.ts';
import type { Router } from '../routing/router.ts';

/** What deleting an instance did here: processes stopped, state directories removed, queued events given up. */
export type DeletedInstance = { instanceKey: string; stopped: number; deleted: string[]; discarded: string[] };

export interface InstanceRemovalDeps {
  stateRoot: string;
  workspaceId(): string;
  gracePeriodMs(): number;
  supervisor: Supervisor;
  delivery: Delivery;
  router: Router;
  approvals: ApprovalBroker;
  logger: RootLogger;
}

export class InstanceRemoval {
  /** Instances (agentKey) being deleted: their processes' exits are not ordinary stops. */
  private readonly deleting = new Set<string>();

  constructor(private readonly deps: InstanceRemovalDeps) {}

  /** The process exits because its instance is being deleted: its waiters are told so here. */
  isDeleting(id: AgentId): boolean {
    return this.deleting.has(agentKey(id));
  }

  async delete(instanceKey: string, agents: readonly string[], options: { keepQueued?: boolean } = {}): Promise<DeletedInstance> {
    const { supervisor, delivery } = this.deps;
    const procs = supervisor.list().filter((p) => p.kind === 'agent' && p.instanceKey === instanceKey && agents.includes(p.name));
    const ids = agents.map((agent) => ({ agent, instanceKey }));
    for (const id of ids) this.deleting.add(agentKey(id));
    try {
      await Promise.all(procs.map((p) => supervisor.stop(p, this.deps.gracePeriodMs(), 'restart', false)));
    } finally {
      for (const id of ids) this.deleting.delete(agentKey(id));
    }
    const deleted: string[] = [];
    const discarded: string[] = [];
    for (const id of ids) {
      const paths = instancePaths(this.deps.stateRoot, this.deps.workspaceId(), id.agent, instanceKey);
      this.deps.approvals.forget(id.agent, instanceKey);
      if (options.keepQueued) {
        // A turn cut at the end of the grace period cannot be resumed without its journal (gone with
        // the state): run again in the new conversation, its tool calls could repeat their effects.
        const cut = delivery.startedEvent(id);
        const why = `instance '${instanceKey}' of agent '${id.agent}' was restarted fresh while this event's turn ran; it was cut off`;
        if (cut !== undefined && delivery.deadLetter(id, cut, why, runtimeError('INSTANCE_DELETED', why))) discarded.push(this.toldGivenUp(cut, why));
        if (removeAllBut(paths.root, basename(paths.inbox))) deleted.push(paths.root);
        // What was queued starts the new conversation.
        if (delivery.pendingCount(id) > 0) supervisor.ensure('agent', id.agent, instanceKey);
        continue;
      }
      const why = `instance '${instanceKey}' of agent '${id.agent}' was deleted before this event ran`;
      // Only the given-up events' waiters: a turn that finished in the grace period has its reply on the way.
      for (const eventId of delivery.deadLetterAll(id, why, runtimeError('INSTANCE_DELETED', why))) discarded.push(this.toldGivenUp(eventId, why));
      delivery.forget(id);
      try {
        rmSync(paths.root, { recursive: true, force: false });
        deleted.push(paths.root);
      } catch {
        // no state for this agent under that key
      }
    }
    if (discarded.length > 0) this.deps.logger.info({ instanceKey, events: discarded }, 'deleted instance: its queued events were given up');
    return { instanceKey, stopped: procs.length, deleted, discarded };
  }

  /** Whoever waits for a given-up event is told now; returns its id. */
  private toldGivenUp(eventId: string, why: string): string {
    this.deps.router.failRequestsFor(eventId, 'INSTANCE_DELETED', why);
    return eventId;
  }
}

/** Removes everything in `dir` but the entry `kept`; false when there was no such directory. */
function removeAllBut(dir: string, kept: string): boolean {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return false;
  }
  for (const entry of entries) if (entry !== kept) rmSync(join(dir, entry), { recursive: true, force: true });
  return true;
}
