/**
 * A provider 429 reported by an agent pauses a rate-limited Model for every agent using it. Agent
 * processes are untrusted: a report counts only while its sender has a call of that Model in
 * flight, pauses at most a minute, and not past five minutes after that call was let go — one
 * process cannot keep a shared Model paused for the others. On a manual clock.
 */
import { describe, expect, test } from 'bun:test';
import pino from 'pino';
import { ApprovalBroker } from '../../orchestrator/approvals/approval-broker.ts';
import { type ModelCaller, ModelCalls } from '../../orchestrator/usage/model-calls.ts';
import type { ModelPlan } from '../../shared/types/bundle.ts';
import { testSwarmPlan } from '../helpers/test-plans.ts';
import { ManualClock } from './helpers/manual-clock.ts';

const shared: ModelPlan = { name: 'shared', provider: 'mock', model: 'mock', options: {}, capabilities: {}, rateLimit: { maxConcurrent: 8 } };

function setUp(): { calls: ModelCalls; clock: ManualClock } {
  const clock = new ManualClock();
  const logger = pino({ level: 'silent' });
  const calls = new ModelCalls({
    swarm: () => testSwarmPlan('s', ['a', 'b', 'c']),
    modelOf: () => shared,
    approvals: new ApprovalBroker({ logger, httpApprovals: false, promptInteractive: () => false }),
    logger,
    clock,
  });
  return { calls, clock };
}

function caller(name: string): ModelCaller {
  return { name, instanceKey: 'k', key: `${name}:k`, alive: true };
}

/** Asks for a call and records the clock's time when it is let go. */
function admittedAt(calls: ModelCalls, clock: ManualClock, from: ModelCaller): { at: number | undefined } {
  const record: { at: number | undefined } = { at: undefined };
  void calls.admit(from, { traceId: `trace_${from.name}`, estimatedInputTokens: 10 }).then((admission) => {
    if (admission.ok) record.at = clock.now();
  });
  return record;
}

async function admissionId(calls: ModelCalls, from: ModelCaller): Promise<string> {
  const admission = await calls.admit(from, { traceId: `trace_${from.name}`, estimatedInputTokens: 10 });
  if (!admission.ok) throw new Error(admission.error.message);
  return admission.value.admissionId;
}

describe('429 reports from agent processes', () => {
  test('a report from an agent with no call of the Model in flight pauses nobody', async () => {
    const { calls, clock } = setUp();
    calls.throttled(caller('a'), { retryAfterMs: 3_600_000 });
    const other = admittedAt(calls, clock, caller('b'));
    await clock.advance(0);
    expect(other.at).toBe(0);
  });

  test('a report during a call pauses the other agents, for a minute at most however long it asks', async () => {
    const { calls, clock } = setUp();
    const id = await admissionId(calls, caller('a'));
    calls.throttled(caller('a'), { retryAfterMs: 2_000 });
    const early = admittedAt(calls, clock, caller('b'));
    await clock.advance(1_999);
    expect(early.at).toBeUndefined();
    await clock.advance(1);
    expect(early.at).toBe(2_000);

    calls.throttled(caller('a'), { retryAfterMs: 3_600_000 });
    const late = admittedAt(calls, clock, caller('c'));
    await clock.advance(60_000);
    expect(late.at).toBe(62_000);
    calls.release(caller('a'), { admissionId: id, stepId: 'step_1' });
  });

  test('reports repeated during one call stop pausing five minutes after it was let go; after its release they count no more', async () => {
    const { calls, clock } = setUp();
    const id = await admissionId(calls, caller('a'));
    calls.throttled(caller('a'), { retryAfterMs: 60_000 });
    const waiting = admittedAt(calls, clock, caller('b'));
    // Each report comes just before the previous pause ends.
    for (let report = 0; report < 10 && waiting.at === undefined; report += 1) {
      await clock.advance(59_000);
      calls.throttled(caller('a'), { retryAfterMs: 60_000 });
    }
    expect(waiting.at).toBe(300_000);

    calls.release(caller('a'), { admissionId: id, stepId: 'step_1' });
    calls.throttled(caller('a'), { retryAfterMs: 60_000 });
    const now = clock.now();
    const after = admittedAt(calls, clock, caller('c'));
    await clock.advance(0);
    expect(after.at).toBe(now);
  });
});
