/**
 * Swarm.spec.policy.budget: cost limits count only calls priced in the budget's currency, so the
 * currency must be one the swarm's priced Models use — given as `currency`, or the one currency
 * they all use. Otherwise the limit would silently never count.
 */
import { isJsonObject } from '../types/json.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import type { RefResolutions } from './check-refs.ts';
import { swarmAgents } from './check-swarms.ts';
import type { ProblemSink } from './problem-sink.ts';

const LIMITS = ['perTurn', 'perInstancePerDay', 'perSwarmPerDay'] as const;

export function checkBudget(swarm: NamedDocument, resolutions: RefResolutions, sink: ProblemSink): void {
  const policy = specOf(swarm)?.policy;
  const budget = isJsonObject(policy) ? policy.budget : undefined;
  if (!isJsonObject(budget)) return;
  const costLimited = LIMITS.filter((scope) => {
    const limit = budget[scope];
    return isJsonObject(limit) && limit.cost !== undefined;
  });
  if (costLimited.length === 0) return;
  const currencies = pricedCurrencies(swarm, resolutions);
  const named = typeof budget.currency === 'string' ? budget.currency : undefined;
  const limits = costLimited.map((scope) => `${scope}.cost`).join(', ');
  if (named !== undefined) {
    if (!currencies.includes(named)) {
      const priced = currencies.join(', ') || 'none is priced';
      sink.at(swarm, ['spec', 'policy', 'budget', 'currency'], 'E_CONFIG_BUDGET_CURRENCY', `budget currency ${named} is not the currency of any priced Model of swarm "${swarm.name}" (${priced}), so ${limits} would never count`, {
        suggestion: currencies.length > 0 ? `set currency: ${currencies[0]}, or price the Models in ${named}` : 'add spec.pricing to the Models the agents use',
      });
    }
    return;
  }
  if (currencies.length === 1) return;
  const unpriced = currencies.length === 0;
  const message = unpriced
    ? `swarm "${swarm.name}" sets ${limits} but none of its agents' Models has spec.pricing, so the cost would always be 0`
    : `swarm "${swarm.name}" sets ${limits} and its Models are priced in several currencies (${currencies.join(', ')}): which one is meant?`;
  const suggestion = unpriced ? 'add spec.pricing: {inputPerMillionTokens, outputPerMillionTokens, currency} to the Models' : `add currency: ${currencies[0]} to the budget`;
  sink.at(swarm, ['spec', 'policy', 'budget'], 'E_CONFIG_BUDGET_CURRENCY', message, { suggestion });
}

function pricedCurrencies(swarm: NamedDocument, resolutions: RefResolutions): string[] {
  const currencies = new Set<string>();
  for (const agent of swarmAgents(swarm, resolutions)) {
    const model = resolutions.get(agent, ['spec', 'modelConfig', 'modelRef']);
    const pricing = model ? specOf(model)?.pricing : undefined;
    if (isJsonObject(pricing) && typeof pricing.currency === 'string') currencies.add(pricing.currency);
  }
  return [...currencies];
}
