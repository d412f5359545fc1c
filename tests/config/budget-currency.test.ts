/**
 * Swarm.spec.policy.budget cost limits must be able to count: `goondan validate` refuses one in no
 * currency the swarm's priced Models use (E_CONFIG_BUDGET_CURRENCY), and accepts the one currency
 * they share without naming it.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../../shared/config/index.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const model = (name: string, currency?: string) => `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: ${name} }
spec:
  provider: mock
  model: ${name}
${currency ? `  pricing: { inputPerMillionTokens: 1, outputPerMillionTokens: 2, currency: ${currency} }\n` : ''}`;
const agent = (name: string, modelName: string) => `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: ${name} }
spec: { modelConfig: { modelRef: Model/${modelName} } }
`;
const swarm = (budget: string) => `apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: s }
spec:
  entryAgent: Agent/a
  agents: [Agent/a, Agent/b]
  policy:
    budget: ${budget}
`;

async function budgetProblems(...docs: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-budget-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'goondan.yaml'), docs.join('---\n'));
  const bundle = await loadBundle(dir, { env: {} });
  return [...bundle.errors, ...bundle.warnings].filter((p) => p.code === 'E_CONFIG_BUDGET_CURRENCY').map((p) => p.message);
}

describe('budget cost limits and the currency of the priced Models', () => {
  test('one currency shared by the priced Models needs no naming; token-only budgets need no pricing', async () => {
    expect(await budgetProblems(model('m', 'USD'), model('n'), agent('a', 'm'), agent('b', 'n'), swarm('{ perTurn: { cost: 1 } }'))).toEqual([]);
    expect(await budgetProblems(model('m'), agent('a', 'm'), agent('b', 'm'), swarm('{ perTurn: { tokens: 100 } }'))).toEqual([]);
  });

  test('no priced Model: the cost limit is refused', async () => {
    const problems = await budgetProblems(model('m'), agent('a', 'm'), agent('b', 'm'), swarm('{ perSwarmPerDay: { cost: 1 } }'));
    expect(problems).toEqual([expect.stringContaining('none of its agents\' Models has spec.pricing')]);
  });

  test('several currencies and none named: refused, naming them', async () => {
    const problems = await budgetProblems(model('m', 'USD'), model('n', 'EUR'), agent('a', 'm'), agent('b', 'n'), swarm('{ perTurn: { cost: 1 } }'));
    expect(problems).toEqual([expect.stringContaining('several currencies (USD, EUR)')]);
    expect(await budgetProblems(model('m', 'USD'), model('n', 'EUR'), agent('a', 'm'), agent('b', 'n'), swarm('{ perTurn: { cost: 1 }, currency: EUR }'))).toEqual([]);
  });
});
