/**
 * Reads what a cluster run left in JetStream itself — the instance state snapshots in the state
 * bucket and the inbox stream — plus the shared counter file, so the e2e test judges "exactly once"
 * from the cluster's own records, not from any one node's disk.
 */
import { existsSync, readFileSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';

export interface ClusterAudit {
  /** Input messages per event id, over every instance's replicated history. */
  inputs: Map<string, number>;
  /** Final assistant texts of finished turns. */
  answers: Set<string>;
  /**
   * Inbox messages some partition consumer has yet to deliver or see acked. (Not the stream's
   * message count: after a NATS kill -9 a work-queue stream can keep messages its consumers had
   * acked, below their ack floor, which nothing will deliver again.)
   */
  backlog: number;
  instances: number;
  /** Per state key, each message as `role: text` (tool calls and results named), for failure messages. */
  histories: Map<string, string[]>;
  /** Partitions whose inbox still holds messages: consumer figures and lease holder. */
  stuckPartitions: string[];
}

export async function auditCluster(url: string, workspaceId: string): Promise<ClusterAudit> {
  const nc = await connect({ servers: url });
  try {
    const token = workspaceId.replace(/[^A-Za-z0-9_-]/g, '_');
    const bucket = `gdn_${token}_state`;
    const kv = await new Kvm(nc).open(bucket);
    const jsm = await jetstreamManager(nc);
    const audit: ClusterAudit = { inputs: new Map(), answers: new Set(), backlog: 0, instances: 0, histories: new Map(), stuckPartitions: [] };
    // The bucket's keys from its stream's subject counts, in one request. `kv.keys()` ends on a
    // consumer message with nothing pending, and keys rewritten while it lists can leave it waiting
    // ~30 s for an idle heartbeat instead: that was the "NATS restart" test's 11 s or 41 s.
    const subjectPrefix = `$KV.${bucket}.`;
    const stream = await jsm.streams.info(`KV_${bucket}`, { subjects_filter: '>' });
    const keys = Object.keys(stream.state.subjects ?? {}).map((subject) => subject.slice(subjectPrefix.length));
    for (const key of keys) {
      const entry = await kv.get(key);
      if (!entry || entry.operation !== 'PUT') continue;
      audit.instances += 1;
      const snapshot = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(entry.value)))) as { files: Record<string, string> };
      // Folded turns only: the audit runs once every turn has finished.
      const lines = (snapshot.files['messages/base.jsonl'] ?? '').split('\n').filter((line) => line.trim() !== '');
      const history: string[] = [];
      audit.histories.set(key, history);
      for (const message of lines.map((line) => JSON.parse(line) as Message)) {
        history.push(`${message.data?.role}: ${textOf(message.data?.content) || JSON.stringify(message.data?.content).slice(0, 400)}`);
        const eventId = message.metadata?.eventId;
        if (message.data?.role === 'user' && typeof eventId === 'string') audit.inputs.set(eventId, (audit.inputs.get(eventId) ?? 0) + 1);
        if (message.data?.role === 'assistant') audit.answers.add(textOf(message.data.content));
      }
    }
    const leases = await new Kvm(nc).open(`gdn_${token}_leases`);
    for await (const info of jsm.consumers.list(`GDN_${token}_INBOX`)) {
      const waiting = info.num_pending + info.num_ack_pending;
      if (waiting === 0) continue;
      audit.backlog += waiting;
      const lease = await leases.get(info.name);
      audit.stuckPartitions.push(`${info.name}: pending ${info.num_pending}, unacked ${info.num_ack_pending}, waiting pulls ${info.num_waiting}, lease ${lease?.operation === 'PUT' ? lease.string() : 'none'}`);
    }
    return audit;
  } finally {
    await nc.close();
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

interface Message {
  data?: { role?: string; content?: unknown };
  metadata?: Record<string, unknown>;
}

/** Executions per counter label (a label is one event's one tool call). */
export function counterExecutions(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const label = String((JSON.parse(line) as { label: unknown }).label);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return counts;
}
