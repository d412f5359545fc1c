/**
 * Outcomes kept for the node that accepted their events until it takes them. The owner of an
 * instance tells the accepting node each outcome over core NATS (a notice, or a waiting caller's
 * reply naming the event: foreign-outcomes.ts), sent again only for a while (a minute, or the
 * caller's deadline). An accepting node away longer — stopped with SIGTERM and started again later,
 * killed, cut off — never heard it, and its ledger showed the event `queued` or `running` for good:
 * a poller of `GET /v1/events/{id}` and a retry under its key waited for ever.
 *
 * Now an outcome the accepting node did not take at the first attempt is also stored in a stream,
 * under the accepting node's disk (node-disk.ts: its ledger is there, whichever `--node-id` it runs
 * under next), and removed once that node has it — by the sender when a later attempt gets through,
 * or by the accepting node, which reads what is waiting for its disk when it starts and whenever it
 * reconnects to NATS. Nothing is given up by the clock: what is kept for a disk goes when no member
 * record (live or departed) names that disk any more — an operator's `nats kv del` of a retired
 * node (deploy/cluster/README.md) — and every node removes it then (sweep).
 */
import { type JetStreamClient, type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { RootLogger } from '../../shared/logger.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { ClusterNames } from './cluster-names.ts';
import { ensureStream } from './ensure-stream.ts';
import { parseRemoteReply } from './remote-replies.ts';
import { retryUntil } from './retry-until.ts';

/** How long storing an outcome is tried while NATS does not answer (a restart of the server). */
const KEEP_PATIENCE_MS = 60_000;
const KEEP_ATTEMPT_MS = 2_000;
const KEEP_RETRY_MS = 500;

export interface KeptOutcomesOptions {
  names: ClusterNames;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: RootLogger;
}

export class KeptOutcomes {
  constructor(private readonly options: KeptOutcomesOptions) {}

  ensureStream(): Promise<void> {
    const { jsm, names } = this.options;
    // Limits retention, no max age: an outcome stays until its node takes it or is forgotten.
    return ensureStream(jsm, { name: names.outcomesStream, subjects: [names.keptOutcomeSubjects()], retention: RetentionPolicy.Limits, storage: StorageType.File, duplicate_window: nanos(120_000) });
  }

  /** Stores `outcome` (it names its event) for the node on `disk`; resolves with its sequence, or rejects when NATS would not store it. */
  async keep(disk: string, eventId: string, outcome: AgentEvent): Promise<number> {
    const { js, names } = this.options;
    // One message per event and disk, also when a publish is retried after a lost answer.
    const msgID = `${disk}.${eventId}`;
    const ack = await retryUntil(() => js.publish(names.keptOutcomeSubject(disk), JSON.stringify(outcome), { msgID, timeout: KEEP_ATTEMPT_MS }), {
      until: Date.now() + KEEP_PATIENCE_MS,
      pauseMs: KEEP_RETRY_MS,
    });
    return ack.seq;
  }

  /** The accepting node has it. Already removed (the other side did it) is fine. */
  async release(seq: number): Promise<void> {
    await this.options.jsm.streams.deleteMessage(this.options.names.outcomesStream, seq, false).catch((error: unknown) => {
      if (!/no message found/i.test(String((error as Error)?.message))) throw error;
    });
  }

  /**
   * Every outcome kept for `disk`, in the order kept, handed to `take` (which records it) and then
   * removed. Resolves with how many; throws when NATS does not answer (what is left stays kept).
   */
  async collect(disk: string, take: (outcome: AgentEvent) => void): Promise<number> {
    const { jsm, names, logger } = this.options;
    const subject = names.keptOutcomeSubject(disk);
    let taken = 0;
    for (let from = 1; ; ) {
      // `next_by_subj` is in the server's API (2.9+), not in the client's types.
      const next = await jsm.streams.getMessage(names.outcomesStream, { next_by_subj: subject, seq: from } as unknown as { seq: number });
      if (!next) return taken;
      from = next.seq + 1;
      // Kept as it was sent over core NATS, and read as such a reply is.
      const outcome = parseRemoteReply(next.data, (problems) => logger.warn({ seq: next.seq, problems }, 'dropped a malformed kept outcome'));
      if (outcome) {
        take(outcome);
        taken += 1;
      }
      await this.release(next.seq);
    }
  }

  /** The members bucket's keys, from its stream's subject counts: `kv.keys()` can stall ~30 s while heartbeats rewrite keys. */
  async memberKeys(): Promise<string[]> {
    const { jsm, names } = this.options;
    const stream = await jsm.streams.info(`KV_${names.membersBucket}`, { subjects_filter: '>' });
    const prefix = `$KV.${names.membersBucket}.`;
    return Object.keys(stream.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
  }

  /** Removes what is kept for disks no member record names (`members`: the disks of every record, live or departed). */
  async sweep(members: ReadonlySet<string>): Promise<void> {
    const { jsm, names, logger } = this.options;
    const named = new Set([...members].map((disk) => names.keptOutcomeSubject(disk)));
    const info = await jsm.streams.info(names.outcomesStream, { subjects_filter: names.keptOutcomeSubjects() });
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      if (named.has(subject)) continue;
      const { purged } = await jsm.streams.purge(names.outcomesStream, { filter: subject });
      logger.info({ subject, purged }, 'dropped the outcomes kept for a node no member record names any more (forgotten by an operator)');
    }
  }
}
