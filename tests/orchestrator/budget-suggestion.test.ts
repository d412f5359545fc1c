/**
 * BUDGET_EXCEEDED says what to do about the limit that was hit: waiting for the next UTC day lifts
 * a per-day limit, never a per-turn one.
 */
import { describe, expect, test } from 'bun:test';
import pino from 'pino';
import { ApprovalBroker } from '../../orchestrator/approvals/approval-broker.ts';
import { ModelCalls } from '../../orchestrator/usage/model-calls.ts';
import type { BudgetPlan, ModelPlan } from '../../shared/types/bundle.ts';
import { testSwarmPlan } from '../helpers/test-plans.ts';
import { ManualClock } from './helpers/manual-clock.ts';

const model: ModelPlan = { name: 'm', provider: 'mock', model: 'mock', options: {}, capabilities: {} };

async function refusal(budget: BudgetPlan): Promise<{ message: string; suggestion?: string }> {
  const logger = pino({ level: 'silent' });
  const calls = new ModelCalls({
    swarm: () => ({ ...testSwarmPlan('s', ['a']), budget }),
    modelOf: () => model,
    approvals: new ApprovalBroker({ logger, httpApprovals: false, promptInteractive: () => false }),
    logger,
    clock: new ManualClock(),
  });
  const admission = await calls.admit({ name: 'a', instanceKey: 'k', key: 'a:k', alive: true }, { traceId: 'trace_1', estimatedInputTokens: 100 });
  if (admission.ok) throw new Error('expected a refusal');
  expect(admission.error.code).toBe('BUDGET_EXCEEDED');
  return admission.error;
}

describe('the suggestion of BUDGET_EXCEEDED fits the limit', () => {
  test('perTurn: raise the limit or make the request smaller; no waiting for the next day', async () => {
    const error = await refusal({ perTurn: { tokens: 10 }, onExceeded: 'deny' });
    expect(error.message).toContain('budget perTurn.tokens (10 tokens)');
    expect(error.suggestion).toContain('this turn and the agent calls it caused used the per-turn limit');
    expect(error.suggestion).toContain('raise Swarm.spec.policy.budget.perTurn.tokens or make the request smaller');
    expect(error.suggestion).not.toContain('UTC');
  });

  test('per day: it resets at the next UTC day', async () => {
    const instance = await refusal({ perInstancePerDay: { tokens: 10 }, onExceeded: 'deny' });
    expect(instance.suggestion).toContain('this instance key used its limit for today; it resets at 00:00 UTC');
    expect(instance.suggestion).toContain('perInstancePerDay.tokens');
    const swarm = await refusal({ perSwarmPerDay: { tokens: 10 }, onExceeded: 'deny' });
    expect(swarm.suggestion).toContain('the swarm used its limit for today; it resets at 00:00 UTC');
  });
});
