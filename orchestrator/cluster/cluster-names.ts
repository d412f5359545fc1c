/**
 * Every NATS name of one swarm's cluster. Subject tokens and bucket names cannot hold `.`, `*`,
 * `>` or whitespace, so the workspace id is folded to `[A-Za-z0-9_-]` and an instance is named by
 * base64url of `agent NUL instanceKey` (injective, unlike a slug).
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';

export class ClusterNames {
  readonly token: string;

  constructor(workspaceId: string) {
    this.token = foldedToken(workspaceId);
  }

  /** Durable inboxes: a work-queue stream, one subject per instance under its partition. */
  get inboxStream(): string {
    return `GDN_${this.token}_INBOX`;
  }

  inboxSubjects(): string {
    return `gdn.${this.token}.in.>`;
  }

  inboxSubject(partition: number, id: AgentId): string {
    return `gdn.${this.token}.in.${partition}.${instanceToken(id)}`;
  }

  partitionFilter(partition: number): string {
    return `${this.partitionSubjectPrefix(partition)}>`;
  }

  /** What every inbox subject of the partition starts with. */
  partitionSubjectPrefix(partition: number): string {
    return `gdn.${this.token}.in.${partition}.`;
  }

  partitionConsumer(partition: number): string {
    return `p${partition}`;
  }

  get membersBucket(): string {
    return `gdn_${this.token}_members`;
  }

  get leasesBucket(): string {
    return `gdn_${this.token}_leases`;
  }

  /** Instance state snapshots (conversation, tool-call journal, extension state). */
  get stateBucket(): string {
    return `gdn_${this.token}_state`;
  }

  stateKey(partition: number, id: AgentId): string {
    return `${partition}.${instanceToken(id)}`;
  }

  /** How far each deleted instance's inbox was given up (deletion-marks.ts), under its state key. */
  get deletionMarksBucket(): string {
    return `gdn_${this.token}_deletion_marks`;
  }

  /** Instances waiting for a tool approval, under their state keys (pending-approval-marks.ts). */
  get pendingApprovalsBucket(): string {
    return `gdn_${this.token}_pending_approvals`;
  }

  leaseKey(partition: number): string {
    return `p${partition}`;
  }

  /** Idempotency keys claimed for the whole cluster (idempotency-claims.ts). */
  get idempotencyBucket(): string {
    return `gdn_${this.token}_idempotency`;
  }

  /** Outcomes kept for the node on a disk until it takes them (kept-outcomes.ts): a subject per disk. */
  get outcomesStream(): string {
    return `GDN_${this.token}_OUTCOMES`;
  }

  keptOutcomeSubjects(): string {
    return `gdn.${this.token}.outcome.*`;
  }

  keptOutcomeSubject(disk: string): string {
    return `gdn.${this.token}.outcome.${foldedToken(disk)}`;
  }

  /** Core NATS: questions about the outcome of events a node accepted. */
  nodeOutcomes(nodeId: string): string {
    return `gdn.${this.token}.node.${nodeId}.outcome`;
  }

  /** Core NATS: the same questions, to whichever node runs on a disk now (idempotency-claims.ts). */
  diskOutcomes(disk: string): string {
    return `gdn.${this.token}.disk.${foldedToken(disk)}.outcome`;
  }

  /** Core NATS: runtime events of traces a node's callers stream (trace-relay.ts). */
  nodeRuntime(nodeId: string): string {
    return `gdn.${this.token}.node.${nodeId}.runtime`;
  }

  /** Core NATS: events of a deleted instance another node gave up, for the node that accepted them (deleted-event-notices.ts). */
  nodeDeletedEvents(nodeId: string): string {
    return `gdn.${this.token}.node.${nodeId}.deleted-event`;
  }

  /** Core NATS: replies to requests a node's callers wait for. */
  nodeReplies(nodeId: string): string {
    return `gdn.${this.token}.node.${nodeId}.reply`;
  }

  /** Core NATS: pending approvals gathered from every node, and decisions offered to their holder (cluster-approvals.ts). */
  get approvalSubjects(): { list: string; decide: string } {
    return { list: `gdn.${this.token}.approvals.list`, decide: `gdn.${this.token}.approvals.decide` };
  }

  /** Core NATS scatter/gather: instances and conversations every node holds (cluster-inspect.ts). */
  get inspectSubjects(): { instances: string; conversation: string; traces: string; traceEvents: string } {
    const inspect = `gdn.${this.token}.inspect`;
    return { instances: `${inspect}.instances`, conversation: `${inspect}.conversation`, traces: `${inspect}.traces`, traceEvents: `${inspect}.trace-events` };
  }

  /** Core NATS: which node holds an event's record (event-lookup.ts). */
  get eventLookupSubject(): string {
    return `gdn.${this.token}.events.lookup`;
  }

  /** Core NATS scatter/gather: every node deletes its part of an instance (instance-deletion.ts). */
  get instanceDeletionSubject(): string {
    return `gdn.${this.token}.instances.delete`;
  }

  /** Core NATS scatter/gather: every node answers with its process rows. */
  get processesSubject(): string {
    return `gdn.${this.token}.processes`;
  }
}

export function instanceToken(id: AgentId): string {
  return Buffer.from(`${id.agent}\u0000${id.instanceKey}`).toString('base64url');
}

/**
 * A name folded to `[A-Za-z0-9_-]`: the workspace id, and a disk id — a UUID (node-disk.ts), folded
 * all the same, as a hand-edited one must not break a subject.
 */
function foldedToken(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}
