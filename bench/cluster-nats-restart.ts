/**
 * The NATS-restart row of bench/cluster.ts: requests (wait: true) arrive at the cluster's nodes
 * every PACE_MS, round robin, while the NATS server is restarted as an operator does it (SIGTERM,
 * then the same port and store). Requests the cluster accepted before the server went away wait
 * for their replies; the figure is the time from the server listening again until the last of
 * those is answered. A request sent while NATS is away is refused at once (503
 * CLUSTER_UNAVAILABLE: nothing is accepted that is not stored) and counts as refused, not failed.
 */
import { restartNats, type RunningNats, type RunningNode } from './fixtures/cluster-processes.ts';
import { fullOrSmoke } from './smoke.ts';

/** Between two requests. */
const PACE_MS = 10;
/** Requests before the restart. */
const LEAD_MS = fullOrSmoke(500, 100);
const KEYS = fullOrSmoke(20, 2);
/** A reply later than this after the restart is counted as failed. */
const REPLY_TIMEOUT_MS = 30_000;

export interface NatsRestart {
  /** From the server listening again to the last reply of a request sent before it stopped. */
  settleMs: number;
  /** Requests sent before the stop and answered only after the server was back. */
  waited: number;
  answered: number;
  /** 503 CLUSTER_UNAVAILABLE: not accepted, told so. */
  refused: number;
  /** How long the slowest refusal took. */
  slowestRefusalMs: number;
  /** Anything else: no reply in time, another error, another request's answer. */
  failed: number;
}

interface Outcome {
  sentAt: number;
  doneAt: number;
  status: number;
  ok: boolean;
  /** What a failed request got (printed with --verbose). */
  why?: string;
}

async function ask(node: RunningNode, instanceKey: string, input: string): Promise<Outcome> {
  const sentAt = performance.now();
  try {
    const response = await fetch(`${node.api}/v1/events`, { method: 'POST', headers: node.headers, body: JSON.stringify({ input, instanceKey, timeoutMs: REPLY_TIMEOUT_MS }), signal: AbortSignal.timeout(REPLY_TIMEOUT_MS + 5_000) });
    const body = (await response.json()) as { status?: string; output?: string };
    const ok = response.status === 200 && body.status === 'ok' && (body.output ?? '').includes(input);
    return { sentAt, doneAt: performance.now(), status: response.status, ok, ...(ok ? {} : { why: JSON.stringify(body).slice(0, 300) }) };
  } catch (error) {
    return { sentAt, doneAt: performance.now(), status: 0, ok: false, why: String(error) };
  }
}

export async function natsRestartOnce(nodes: RunningNode[], nats: RunningNats, tag: string): Promise<NatsRestart> {
  const outcomes: Array<Promise<Outcome>> = [];
  let sending = true;
  const sender = (async () => {
    for (let i = 0; sending; i++) {
      const node = nodes[i % nodes.length] as RunningNode;
      outcomes.push(ask(node, `${tag}-${i % KEYS}`, `hello ${tag} ${i}`));
      await Bun.sleep(PACE_MS);
    }
  })();
  await Bun.sleep(LEAD_MS);
  const stoppedAt = performance.now();
  await restartNats(nats);
  const backAt = performance.now();
  sending = false;
  await sender;
  const results = await Promise.all(outcomes);
  if (process.env.BENCH_VERBOSE) for (const r of results) if (!r.ok) console.error(`${(r.sentAt - stoppedAt).toFixed(0)} ms after the stop → ${r.status} after ${(r.doneAt - r.sentAt).toFixed(0)} ms: ${r.why}`);
  const before = results.filter((r) => r.sentAt < stoppedAt);
  const waited = before.filter((r) => r.ok && r.doneAt > backAt);
  const refused = results.filter((r) => r.status === 503);
  return {
    settleMs: waited.length > 0 ? Math.max(...waited.map((r) => r.doneAt)) - backAt : 0,
    waited: waited.length,
    answered: results.filter((r) => r.ok).length,
    refused: refused.length,
    slowestRefusalMs: Math.max(0, ...refused.map((r) => r.doneAt - r.sentAt)),
    failed: results.filter((r) => !r.ok && r.status !== 503).length,
  };
}
