/**
 * One node of a goondan cluster on NATS JetStream (issue 15, deploy/cluster/README.md): the
 * connection, membership, partition leases, the JetStream inboxes and state snapshots, and the
 * core NATS subjects for replies and the cluster-wide process table. The orchestrator core sees
 * it only through CoreCluster; agents still run as local subprocesses of their owner node.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RootLogger } from '../../shared/logger.ts';
import { RecentSet } from '../../shared/recent-set.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { CoreCluster, OrchestratorCore } from '../daemon/orchestrator-core.ts';
import type { ProcessRow } from '../http/api-server.ts';
import type { ExternalSubmission, Submitted } from '../routing/external-submissions.ts';
import type { ClusterRouting } from '../routing/router.ts';
import { type EventRecord, IDEMPOTENCY_WINDOW_MS } from '../delivery/event-ledger.ts';
import { ClusterInbox, type InboxEnvelope } from './cluster-inbox.ts';
import { ClusterNames } from './cluster-names.ts';
import { IdempotencyClaims } from './idempotency-claims.ts';
import { admitConnectorEvent, submitKeyed } from './keyed-submission.ts';
import type { ClusterOptions } from './cluster-options.ts';
import { KvObserver } from './kv-observer.ts';
import { Membership } from './membership.ts';
import { nodeDiskId } from './node-disk.ts';
import { KeptOutcomes } from './kept-outcomes.ts';
import { OutcomeDelivery } from './outcome-delivery.ts';
import { openNatsLink } from './nats-link.ts';
import { ExclusiveConnections } from './exclusive-connections.ts';
import type { ManagedProcess } from '../process/managed-process.ts';
import { PartitionLeases } from './partition-leases.ts';
import { PartitionOwner } from './partition-owner.ts';
import { PartitionRounds } from './partition-rounds.ts';
import { clusterProcessRows, serveProcessRows } from './process-rows.ts';
import { parseRemoteReply, RemoteReplies } from './remote-replies.ts';
import { StateReplica } from './state-replica.ts';
import { TraceRelay } from './trace-relay.ts';
import { NodeDeletions } from './node-deletions.ts';
import { DeletionMarks } from './deletion-marks.ts';
import { DeletedEventNotices } from './deleted-event-notices.ts';
import { EventLookup } from './event-lookup.ts';
import { ClusterApprovals } from './cluster-approvals.ts';
import { PendingApprovalMarks } from './pending-approval-marks.ts';
import { ClusterInspect } from './cluster-inspect.ts';
import { localConversation, localInstances, localTraceEvents, localTraces } from '../inspect/inspect-routes.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { AgentId } from '../../shared/ipc/agent-id.ts';
import { newId, newTraceId } from '../../shared/ids.ts';

export interface ClusterNodeDeps {
  workspaceId: string;
  stateRoot: string;
  logger: RootLogger;
  apiUrl(): string;
  gracePeriodMs(): number;
}

/**
 * A KV write's wait for its answer (the client's default is 5 s). A write sent as NATS went away is
 * lost without an answer, and the instance's state or the lease waits this long before it is
 * retried; a retry recognises one that landed after all (state-replica.ts, partition-leases.ts).
 */
const KV_REQUEST_TIMEOUT_MS = 2_000;

/** Refused events remembered (findEvent answers 404 for them, not "unknown"). */
const MAX_REFUSED_REMEMBERED = 10_000;

export class ClusterNode {
  readonly names: ClusterNames;
  readonly owner: PartitionOwner;
  /** Heartbeat, lease renewals, hand-overs and claims, each period (partition-rounds.ts). */
  private readonly rounds: PartitionRounds;
  private draining = false;
  private readonly subscriptions: Subscription[] = [];
  private readonly relay: TraceRelay;
  private readonly deletions: NodeDeletions;
  /** Events of deleted instances this node gave up, told to the nodes that accepted them. */
  private readonly deletedEvents: DeletedEventNotices;
  private readonly lookup: EventLookup;
  /** Outcomes for the nodes that accepted their events, kept while those are away (outcome-delivery.ts). */
  private readonly outcomes: OutcomeDelivery;
  /** Events whose publish the cluster refused here, most recent last (findEvent). */
  private readonly refusedHere = new RecentSet<string>(MAX_REFUSED_REMEMBERED);
  /** Pending approvals of every node (GET /v1/approvals, decisions) — cluster-approvals.ts. */
  readonly approvals: ClusterApprovals;
  /** Instances and conversations every node holds (the studio's views) — cluster-inspect.ts. */
  readonly inspect: ClusterInspect;
  private core: OrchestratorCore | undefined;
  /** Connections one node at a time holds (pollers): granted by the holder of their partition. */
  private readonly exclusive: ExclusiveConnections<ManagedProcess>;

  private constructor(
    readonly options: ClusterOptions,
    private readonly deps: ClusterNodeDeps,
    private readonly nc: NatsConnection,
    readonly connected: () => boolean,
    downForMs: () => number,
    private readonly inbox: ClusterInbox,
    readonly membership: Membership,
    private readonly leases: PartitionLeases,
    private readonly observers: KvObserver[],
    private readonly replica: StateReplica,
    names: ClusterNames,
    private readonly claims: IdempotencyClaims,
    private readonly marks: DeletionMarks,
    private readonly approvalMarks: PendingApprovalMarks,
    kept: KeptOutcomes,
    disk: string,
  ) {
    this.names = names;
    const replies = new RemoteReplies(nc, (node) => names.nodeReplies(node), deps.logger);
    this.outcomes = new OutcomeDelivery({ kept, membership, disk, logger: deps.logger, send: (...args) => replies.send(...args), take: (outcome) => this.takeReply(outcome) });
    this.relay = new TraceRelay(nc, (node) => names.nodeRuntime(node), options.nodeId, deps.logger);
    this.lookup = new EventLookup({ nc, subject: names.eventLookupSubject, nodeId: options.nodeId, membership, membersBucket: names.membersBucket, logger: deps.logger });
    this.approvals = new ClusterApprovals({
      nc,
      subjects: names.approvalSubjects,
      nodeId: options.nodeId,
      members: () => [...new Set([...this.membership.live(), ...this.leases.holders()])],
      logger: deps.logger,
    });
    this.inspect = new ClusterInspect(nc, names.inspectSubjects, options.nodeId, deps.logger, () => membership.live());
    this.deletions = new NodeDeletions({
      nc,
      subject: names.instanceDeletionSubject,
      nodeId: options.nodeId,
      stateRoot: deps.stateRoot,
      workspaceId: deps.workspaceId,
      logger: deps.logger,
      gracePeriodMs: deps.gracePeriodMs,
      liveNodes: () => this.membership.live(),
      connected: () => this.connected(),
      core: () => this.core,
      owner: () => this.owner,
      replica,
      marks,
    });
    this.deletedEvents = new DeletedEventNotices({ nc, nodeId: options.nodeId, subjectOf: (node) => names.nodeDeletedEvents(node), logger: deps.logger, core: () => this.core, deliver: (...args) => this.outcomes.deliver(...args) });
    this.owner = new PartitionOwner({
      inbox,
      replica,
      partitions: options.partitions,
      logger: deps.logger,
      gracePeriodMs: deps.gracePeriodMs,
      // Stop what runs here, then claim the partition afresh: its instances restore the newer state.
      onFenced: (partition) => {
        this.leases.drop(partition);
        void this.owner.lose(partition);
      },
      onTaken: (partition) => this.exclusive.acquired(partition),
      onGivingUp: (partition) => this.exclusive.released(partition),
      pendingApprovals: (partition) => this.approvalMarks.of(partition),
      deletedThrough: (partition, id) => this.marks.deletedThrough(partition, id),
      tellGivenUp: (origin, eventId, reason) => {
        // Its trace is followed no longer here: it left the inbox (its event.dead has been relayed).
        this.relay.end(eventId);
        return this.deletedEvents.tell(origin, { eventId, reason });
      },
      outcomeHandedOff: (eventId) => this.outcomes.handedOff(eventId),
    });
    this.rounds = new PartitionRounds({
      nodeId: options.nodeId,
      partitions: options.partitions,
      leaseTimeoutMs: options.leaseTimeoutMs,
      membership,
      leases,
      owner: this.owner,
      eachRound: () => {
        this.inbox.keepAlive();
        void this.outcomes.sweep();
      },
      downForMs,
      logger: deps.logger,
    });
    this.exclusive = new ExclusiveConnections({
      partitions: options.partitions,
      holds: (partition) => this.leases.held.has(partition),
      // A connector stopped for good would leave its connection dead on every node; restarted, it waits for the new holder.
      restart: (proc) => void this.core?.restart((p) => p === proc, 'restart').catch((error: unknown) => deps.logger.warn({ err: error, connection: proc.name }, 'could not restart a connector')),
      logger: deps.logger,
    });
  }

  /** Connects and prepares the swarm's streams and buckets; throws CLUSTER_UNAVAILABLE when NATS cannot serve. */
  static async open(options: ClusterOptions, deps: ClusterNodeDeps, onMalformed: () => void): Promise<ClusterNode> {
    const link = await openNatsLink(options, deps.logger);
    const { nc } = link;
    const names = new ClusterNames(deps.workspaceId);
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const kvm = new Kvm(jetstream(nc, { timeout: KV_REQUEST_TIMEOUT_MS }));
    const [members, leaseBucket, state, idempotency, deletionMarks, pendingApprovals] = await Promise.all([
      kvm.create(names.membersBucket, { history: 1 }),
      kvm.create(names.leasesBucket, { history: 1 }),
      kvm.create(names.stateBucket, { history: 1 }),
      // Claims last as long as a ledger keeps its keys.
      kvm.create(names.idempotencyBucket, { history: 1, ttl: IDEMPOTENCY_WINDOW_MS }),
      kvm.create(names.deletionMarksBucket, { history: 1 }),
      kvm.create(names.pendingApprovalsBucket, { history: 1 }),
    ]);
    const memberView = await KvObserver.start(members, deps.logger);
    const leaseView = await KvObserver.start(leaseBucket, deps.logger);
    const approvalsView = await KvObserver.start(pendingApprovals, deps.logger);
    let node: ClusterNode | undefined;
    const inbox = new ClusterInbox({
      names,
      js,
      jsm,
      // Half the lease: a dead owner's unfinished messages are due again well before its lease is
      // taken, so the new owner gets them before newer events of the same instances (FIFO per instance).
      ackWaitMs: Math.max(1_000, Math.round(options.leaseTimeoutMs / 2)),
      logger: deps.logger,
      onEvent: (envelope, partition, seq) => (node ? node.deliver(envelope, partition, seq) : Promise.reject(new Error('cluster node not ready'))),
      onMalformed,
    });
    const kept = new KeptOutcomes({ names, js, jsm, logger: deps.logger });
    await Promise.all([inbox.ensureStream(), kept.ensureStream()]);
    const disk = nodeDiskId(deps.stateRoot, deps.workspaceId);
    const membership = new Membership(members, memberView, options.nodeId, options.leaseTimeoutMs, deps.apiUrl, disk);
    const leases = new PartitionLeases(leaseBucket, leaseView, names, options.nodeId, options.leaseTimeoutMs, deps.logger);
    const replica = new StateReplica(state, names, deps.stateRoot, deps.workspaceId, deps.logger);
    const claims = new IdempotencyClaims(idempotency, nc, { node: (id) => names.nodeOutcomes(id), disk: (id) => names.diskOutcomes(id) }, options.nodeId, disk, deps.logger);
    const marks = new DeletionMarks({ kv: deletionMarks, names, takenThrough: (partition, id) => inbox.takenThrough(partition, id) });
    const approvalMarks = new PendingApprovalMarks(approvalsView, names);
    const observers = [memberView, leaseView, approvalsView];
    node = new ClusterNode(options, deps, nc, link.connected, link.downForMs, inbox, membership, leases, observers, replica, names, claims, marks, approvalMarks, kept, disk);
    link.onReconnect(() => {
      memberView.refresh();
      leaseView.refresh();
      void inbox.resumeAll();
      // Deletions made, and outcomes kept for it, while this node was cut off.
      void node?.deletions.sweep();
      void node?.outcomes.collect();
    });
    return node;
  }

  /** What the orchestrator core plugs in (routing, acks after replication, state sync, hand-over). */
  coreHooks(): CoreCluster {
    return {
      routing: this.routing(),
      onSettled: (id, eventId) => {
        this.owner.settled(id, eventId);
        this.relay.end(eventId);
      },
      syncState: (proc) => this.owner.syncState(proc),
      exclusiveConnection: (proc) => this.exclusive.request(proc),
      isHandingOver: (proc) => this.owner.isHandingOver(proc),
    };
  }

  /** Starts serving: replies and process rows for other nodes, membership and partition ownership. */
  async start(core: OrchestratorCore, localRows: () => Promise<ProcessRow[]>): Promise<void> {
    this.core = core;
    this.owner.attach(core);
    this.followApprovals(core);
    this.subscriptions.push(
      this.nc.subscribe(this.names.nodeReplies(this.options.nodeId), {
        callback: (error, msg) => {
          if (error) return;
          this.receiveReply(msg.data);
          // The receipt the sender waits for (remote-replies.ts): it stops sending this one.
          msg.respond();
        },
      }),
      serveProcessRows(this.nc, this.names.processesSubject, this.options.nodeId, localRows, this.deps.logger),
      ...this.claims.serve(core.ledger),
      this.relay.start(core.runtimeEvents),
      this.deletions.serve(),
      this.deletedEvents.serve(),
      this.lookup.serve(core.ledger),
      ...this.approvals.serve(core.approvals, () => this.owner.pendingRestored()),
      ...this.inspect.serve({
        instances: () => localInstances(this.deps.stateRoot, this.deps.workspaceId),
        conversation: (agent, instanceKey) => localConversation(this.deps.stateRoot, this.deps.workspaceId, agent, instanceKey),
        traces: (limit) => localTraces(this.deps.stateRoot, this.deps.workspaceId, limit),
        traceEvents: (traceId) => localTraceEvents(this.deps.stateRoot, this.deps.workspaceId, traceId),
      }),
    );
    await this.membership.heartbeat();
    await this.rounds.start();
    // Deletions made, and outcomes kept for it, while this node was down.
    void this.deletions.sweep();
    void this.outcomes.collect();
  }

  /**
   * Pending approvals are part of an instance's state (approvals.json travels in its snapshot): the
   * node that runs the instance holds them, with their ids, createdAt and session grants, also after
   * a takeover. Those read from disk at start are of instances this node does not run yet: each
   * comes back when its instance is restored here, as the cluster has it.
   */
  private followApprovals(core: OrchestratorCore): void {
    core.approvals.forgetAll();
    // Which instances wait for a decision, for a node that takes their partition over (pending-approval-marks.ts).
    const mark = (id: AgentId) => {
      this.approvalMarks.set(this.owner.partitionOf(id), id, core.approvals.hasUndecided(id.agent, id.instanceKey)).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, agent: id.agent, instanceKey: id.instanceKey }, 'could not mark whether an instance waits for an approval; a takeover picks its approvals up with its next event');
      });
    };
    this.replica.listen({
      restored: (id) => {
        core.approvals.adopt(id.agent, id.instanceKey);
        mark(id);
      },
      left: (id) => core.approvals.forget(id.agent, id.instanceKey),
      deletedElsewhere: (id) => this.deletions.deletedElsewhere(id),
    });
    // An approval asked or decided is stored at once: the node may die while the turn waits.
    core.approvals.onSaved((agent, instanceKey) => {
      const id = { agent, instanceKey };
      if (!this.replica.holds(id)) return;
      this.replica.sync(this.owner.partitionOf(id), id).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, agent, instanceKey }, 'could not store an approval in the cluster now; the next state write of the instance carries it');
      });
      mark(id);
    });
  }

  /** An event from outside: one under an Idempotency-Key is claimed for the cluster first (keyed-submission.ts). */
  submit(submission: ExternalSubmission, core: OrchestratorCore): Submitted | Promise<Submitted> {
    if (!submission.stream) return this.submitHere(submission, core);
    // The trace is followed from before the event leaves: its first runtime events come from elsewhere.
    const traceId = submission.traceId ?? newTraceId();
    const caller = newId('stream');
    this.relay.streamedHere(traceId, caller);
    const end = () => this.relay.end(caller);
    const submitted = Promise.resolve(this.submitHere({ ...submission, traceId }, core));
    void submitted.then((s) => (s.reply ?? s.accepted ?? Promise.resolve()).then(end, end), end);
    return submitted;
  }

  private submitHere(submission: ExternalSubmission, core: OrchestratorCore): Submitted | Promise<Submitted> {
    const key = submission.idempotencyKey;
    if (key === undefined) return core.submit(submission);
    return submitKeyed({ claims: this.claims, ledger: core.ledger, nodeId: this.options.nodeId, submit: (s) => core.submit(s), refused: (id) => this.refusedHere.add(id) }, submission, key);
  }

  /** The record of an event another node accepted (`GET /v1/events/{id}` on any node). */
  findEvent(eventId: string): Promise<EventRecord | undefined> {
    // Refused here (its caller got 503): not accepted, whatever the other nodes can say.
    if (this.refusedHere.has(eventId)) return Promise.resolve(undefined);
    return this.lookup.find(eventId);
  }

  /** `goondan instance delete` for the whole cluster (node-deletions.ts); CLUSTER_UNAVAILABLE when NATS is away. */
  deleteInstance(instanceKey: string, agents: readonly string[]): Promise<JsonObject> {
    return this.deletions.delete(instanceKey, agents);
  }

  /** An event pulled from an owned partition: its trace followed if its caller streams it elsewhere. */
  private deliver(envelope: InboxEnvelope, partition: number, seq: number): Promise<void> {
    this.relay.delivered(envelope.event);
    this.outcomes.noteOrigin(envelope.origin);
    // Accepted from outside by another node, whose ledger waits for its outcome (foreign-outcomes.ts).
    if (envelope.origin !== this.options.nodeId && envelope.event.source.kind !== 'agent') this.outcomes.expect(envelope.event.id);
    return this.owner.deliver(envelope, partition, seq);
  }

  /** The whole cluster's process table (each node's rows, tagged); this node's alone if NATS is away. */
  async processRows(localRows: () => Promise<ProcessRow[]>): Promise<ProcessRow[]> {
    if (!this.connected()) return (await localRows()).map((row) => ({ ...row, node: this.options.nodeId }));
    return clusterProcessRows(this.nc, this.names.processesSubject, this.options.nodeId, localRows, this.deps.logger, this.membership.live());
  }

  /** Partitions this node took over from a node that stopped renewing (not handed over). */
  get takeovers(): number {
    return this.rounds.takeovers;
  }

  ownedPartitions(): number {
    return this.leases.held.size;
  }

  /** SIGTERM: leave the assignment, hand every partition over (no lease waits out its timeout), leave (marked departed: membership.ts). */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.membership.draining = true;
    await this.membership.heartbeat().catch(() => undefined);
    await this.rounds.drain();
    await this.membership.leave().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.rounds.stop();
    this.relay.stop();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.inbox.close();
    for (const observer of this.observers) observer.stop();
    await this.nc.drain().catch(() => this.nc.close());
  }

  private routing(): ClusterRouting {
    return {
      nodeId: this.options.nodeId,
      publish: (target, event, from, kind) => {
        const published = this.inbox.publish(this.owner.partitionOf(target), { target, from, kind, origin: this.options.nodeId, event: this.relay.outgoing(event) });
        published.catch(() => this.refusedHere.add(event.id));
        return published;
      },
      sendReply: (node, event, until) => this.sendReply(node, event, until),
      replyStored: (callee, eventId) => this.owner.replyStored(callee, eventId),
      admitConnectorEvent: (key, candidate, waitMs) => admitConnectorEvent({ claims: this.claims, nodeId: this.options.nodeId }, key, candidate, waitMs),
    };
  }

  private sendReply(node: string, event: AgentEvent, until: number): void {
    if (node === this.options.nodeId) {
      this.core?.router.receiveRemoteReply(event);
      return;
    }
    void this.outcomes.send(node, event, until);
  }

  private receiveReply(data: Uint8Array): void {
    const reply = parseRemoteReply(data, (problems) => {
      this.core?.metrics.malformedMessages.inc({ source: 'cluster' });
      this.deps.logger.warn({ problems }, 'dropped a malformed reply from another node');
    });
    if (reply) this.takeReply(reply);
  }

  /** A reply or outcome from another node, received now or kept for this node while it was away. */
  private takeReply(reply: AgentEvent): void {
    // Recorded dead before the router records it done (deleted-event-notices.ts).
    this.deletedEvents.recordReply(reply);
    this.core?.router.receiveRemoteReply(reply);
  }
}
