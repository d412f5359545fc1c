/**
 * Model.spec.pricing through a real daemon on the mock model: every model call is priced, and
 * tokens and cost show per agent, instance and trace in the runtime events, /metrics,
 * GET /v1/usage and `goondan ps`.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { GOONDAN_BIN, REPO_ROOT, sharedDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/cost');
const daemon = sharedDaemon(BUNDLE, { args: ['--swarm', 'priced'] });

interface StepEvent {
  type: string;
  agentName: string;
  instanceKey: string;
  traceId: string;
  model?: string;
  tokenUsage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  cost?: { amount: number; currency: string };
}

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn([GOONDAN_BIN, ...args, '--state-root', daemon().stateRoot], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [out, code] = [await new Response(proc.stdout).text(), await proc.exited];
  return { code, out };
}

async function traceEvents(traceId: string): Promise<StepEvent[]> {
  const logs = await cli('logs', '--trace', traceId, '--json');
  return logs.out.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as StepEvent);
}

/** The fixture's price: 2 per million input tokens, 10 per million output tokens. */
function priceOf(usage: { promptTokens: number; completionTokens: number }): number {
  return (usage.promptTokens * 2 + usage.completionTokens * 10) / 1_000_000;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('Model.spec.pricing prices every model call', () => {
  test('step.completed and turn.completed carry the Model and the cost of their tokens', async () => {
    const { body } = await daemon().send({ input: 'ask beta hello there', instanceKey: 'cost-1' });
    expect(body.output).toBe('beta said: beta got: hello there');
    const events = await traceEvents(String(body.traceId));
    const steps = events.filter((e) => e.type === 'step.completed');
    expect(new Set(steps.map((s) => s.agentName))).toEqual(new Set(['alpha', 'beta']));
    for (const step of steps) {
      expect(step.model).toBe('priced');
      expect(step.tokenUsage?.promptTokens).toBeGreaterThan(0);
      expect(step.cost?.currency).toBe('USD');
      expect(step.cost?.amount).toBeCloseTo(priceOf(step.tokenUsage ?? { promptTokens: 0, completionTokens: 0 }), 12);
    }
    const alphaTurn = events.find((e) => e.type === 'turn.completed' && e.agentName === 'alpha');
    const alphaSteps = steps.filter((s) => s.agentName === 'alpha');
    expect(alphaTurn?.cost?.amount).toBeCloseTo(sum(alphaSteps.map((s) => s.cost?.amount ?? 0)), 12);
  });
});

describe('tokens and cost per agent, instance and trace', () => {
  test('GET /v1/usage?traceId= sums every agent the trace reached; /metrics counts per agent and instance', async () => {
    const { body } = await daemon().send({ input: 'ask beta count me', instanceKey: 'cost-2' });
    const traceId = String(body.traceId);
    const steps = (await traceEvents(traceId)).filter((e) => e.type === 'step.completed');
    const tokensOf = (s: StepEvent) => (s.tokenUsage?.promptTokens ?? 0) + (s.tokenUsage?.completionTokens ?? 0);

    const trace = (await (await daemon().api(`/v1/usage?traceId=${traceId}`)).json()) as { usage: { tokens: number; calls: number; cost: Record<string, number> } };
    expect(trace.usage.calls).toBe(steps.length);
    expect(trace.usage.tokens).toBe(sum(steps.map(tokensOf)));
    expect(trace.usage.cost.USD).toBeCloseTo(sum(steps.map((s) => s.cost?.amount ?? 0)), 12);

    const metrics = await (await daemon().api('/metrics')).text();
    const alphaSteps = steps.filter((s) => s.agentName === 'alpha');
    const promptLine = metrics.match(/^goondan_model_tokens_total\{agent="alpha",instance="cost-2",kind="prompt"\} (\d+)$/m);
    expect(Number(promptLine?.[1])).toBe(sum(alphaSteps.map((s) => s.tokenUsage?.promptTokens ?? 0)));
    const costLine = metrics.match(/^goondan_model_cost_total\{agent="alpha",instance="cost-2",currency="USD"\} (\S+)$/m);
    expect(Number(costLine?.[1])).toBeCloseTo(sum(alphaSteps.map((s) => s.cost?.amount ?? 0)), 12);
    expect(metrics).toMatch(/^goondan_model_calls_total\{agent="beta",instance="cost-2"\} 1$/m);
  });

  test('goondan ps shows TOKENS and COST per agent instance', async () => {
    await daemon().send({ input: 'hello', instanceKey: 'cost-ps' });
    // The reply can reach the caller before the turn's acknowledgement makes the row idle (seen once).
    await waitFor('cost-ps to be idle', () => daemon().processes(), (rows) => rows.some((row) => row.instanceKey === 'cost-ps' && row.status === 'idle'));
    const table = await cli('ps');
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^NAME\s+INSTANCE\s+PID\s+STATUS\s+CRASHES\s+RESTARTS\s+RSS\s+TOKENS\s+COST/m);
    expect(table.out).toMatch(/^alpha\s+cost-ps\s+\d+\s+idle\s+0\s+0\s+[\d.]+ MB\s+[1-9]\d*\s+[\d.e-]+ USD/m);
    const rows = JSON.parse((await cli('ps', '--json')).out) as Array<{ instanceKey: string; usage: { tokens: number; calls: number } | null }>;
    expect(rows.find((r) => r.instanceKey === 'cost-ps')?.usage?.calls).toBe(1);
  });
});
