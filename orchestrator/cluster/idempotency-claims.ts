/**
 * Cluster mode: an `Idempotency-Key` held for the whole cluster. A node's event ledger remembers the
 * keys of the events it accepted; a retry sent through another node (a load balancer's choice) was
 * a new event, and ran a second time. Now the first node to accept an event under a key claims the
 * key in a JetStream KV bucket (a create: one winner) with the event's id; a retry through another
 * node finds the claim and answers from the accepting node's ledger, asked over core NATS, instead
 * of running the event again. Claims live as long as the ledger keeps keys (24 h).
 *
 * A claim names the accepting node's disk too (node-disk.ts), where its ledger is: the default
 * `--node-id` (hostname-pid) changes with every start, and a node back on the same state directory
 * under another id took its earlier self's claims for another node's — a retry through another
 * node asked the old id, which nobody answers, and got 503 until the claim expired. Claims with a
 * disk are asked through the disk's subject, which whichever node runs on that disk answers, and a
 * node takes a claim of its own disk as its own.
 */
import type { KV } from '@nats-io/kv';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { EventLedger } from '../delivery/event-ledger.ts';
import type { ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';
import { within } from '../../shared/within.ts';
import { decodeJson, encodeJson, isWrongRevision, messageJson } from './kv-json.ts';
import { serveRequests } from './serve-requests.ts';

/** Who accepted the event a key names. */
export interface KeyClaim {
  eventId: string;
  node: string;
  agent: string;
  instanceKey: string;
  traceId: string;
  /** The digest of the input the key was claimed with (request-digest.ts); absent from older nodes' claims. */
  inputDigest?: string;
  /** The accepting node's disk (node-disk.ts); absent from older nodes' claims. */
  disk?: string;
}

export type ClaimResult = { kind: 'ours'; claim: KeyClaim } | { kind: 'theirs'; claim: KeyClaim; revision: number };

/** What the accepting node says of an event: unknown to it (refused there, or expired), or its outcome once settled. */
export interface RemoteOutcome {
  known: boolean;
  outcome?: ReplyOutcome;
}

interface OutcomeQuestion {
  eventId: string;
  waitMs: number;
}

const str = { type: 'string', minLength: 1 } as const;
const isClaim = compiledValidator<KeyClaim>({
  schema: { type: 'object', required: ['eventId', 'node', 'agent', 'instanceKey', 'traceId'], properties: { eventId: str, node: str, agent: str, instanceKey: str, traceId: str, inputDigest: str, disk: str } },
});
const isQuestion = compiledValidator<OutcomeQuestion>({
  schema: { type: 'object', required: ['eventId', 'waitMs'], properties: { eventId: str, waitMs: { type: 'number', minimum: 0 } } },
});
const isAnswer = compiledValidator<RemoteOutcome>({
  options: { strict: false },
  schema: { type: 'object', required: ['known'], properties: { known: { type: 'boolean' }, outcome: { type: 'object', required: ['status', 'output'] } } },
});

/** The answer's own margin past the wait the asking node gives the accepting one. */
const ANSWER_MARGIN_MS = 2_000;

/** Where a node answers questions about the outcomes of the events it accepted: under its id, and under its disk. */
export interface OutcomeSubjects {
  node(nodeId: string): string;
  disk(disk: string): string;
}

export class IdempotencyClaims {
  constructor(
    private readonly kv: KV,
    private readonly nc: NatsConnection,
    private readonly subjects: OutcomeSubjects,
    private readonly nodeId: string,
    private readonly disk: string,
    private readonly logger: RootLogger,
  ) {}

  /** Claims `key` for `candidate` (this node, on this disk), or finds who holds it. Throws when NATS does not answer. */
  async claim(key: string, candidate: KeyClaim): Promise<ClaimResult> {
    const name = keyName(key);
    const mine: KeyClaim = { ...candidate, disk: this.disk };
    try {
      await this.kv.create(name, encodeJson(mine));
      return { kind: 'ours', claim: mine };
    } catch (error) {
      if (!isWrongRevision(error) && !/exists/i.test(String((error as Error)?.message))) throw error;
    }
    const entry = await this.kv.get(name);
    const held = entry && entry.operation === 'PUT' ? decodeJson(entry.value, isClaim) : undefined;
    if (!entry || !held) throw new Error(`the claim of an idempotency key could not be read back (${entry ? 'malformed' : 'gone'}); retry`);
    // This disk's ledger holds the event, whichever id this node ran under when it claimed the key.
    const ours = held.node === this.nodeId || held.disk === this.disk;
    return ours ? { kind: 'ours', claim: held } : { kind: 'theirs', claim: held, revision: entry.revision };
  }

  /** The accepting node no longer knows the event: this node takes the claim (same event id). False when another got there first. */
  async takeOver(key: string, claim: KeyClaim, revision: number): Promise<boolean> {
    try {
      await this.kv.update(keyName(key), encodeJson({ ...claim, node: this.nodeId, disk: this.disk } satisfies KeyClaim), revision);
      return true;
    } catch (error) {
      if (isWrongRevision(error)) return false;
      throw error;
    }
  }

  /**
   * Asks the node that claimed the key — the one on its disk now, whatever its id — for the event's
   * outcome, waiting up to `waitMs` for it to settle. Throws when no node answers.
   */
  async outcomeFrom(claim: Pick<KeyClaim, 'node' | 'disk' | 'eventId'>, waitMs: number): Promise<RemoteOutcome> {
    const { eventId } = claim;
    const subject = claim.disk === undefined ? this.subjects.node(claim.node) : this.subjects.disk(claim.disk);
    const answer = await this.nc.request(subject, JSON.stringify({ eventId, waitMs } satisfies OutcomeQuestion), { timeout: waitMs + ANSWER_MARGIN_MS });
    const value = messageJson(answer);
    if (!isAnswer(value)) throw new Error(`the node that claimed the key (${claim.node}, or the one on its disk now) answered the outcome of ${eventId} with a malformed message`);
    return value;
  }

  /** Answers other nodes' questions about the events this node accepted: under its id (older claims) and its disk. */
  serve(ledger: EventLedger): Subscription[] {
    return [this.subjects.node(this.nodeId), this.subjects.disk(this.disk)].map((subject) => this.answer(subject, ledger));
  }

  private answer(subject: string, ledger: EventLedger): Subscription {
    return serveRequests(this.nc, subject, isQuestion, this.logger, (question, msg) => {
      if (!ledger.get(question.eventId)) {
        msg.respond(JSON.stringify({ known: false } satisfies RemoteOutcome));
        return;
      }
      void within(
        ledger.outcome(question.eventId).then((outcome): RemoteOutcome => ({ known: true, outcome })),
        question.waitMs,
        (): RemoteOutcome => ({ known: true }),
      ).then((answer) => msg.respond(JSON.stringify(answer)));
    });
  }
}

/** KV keys allow few characters: the key's SHA-256 (any text, one fixed length). */
function keyName(key: string): string {
  return `k_${new Bun.CryptoHasher('sha256').update(key).digest('hex')}`;
}
