/**
 * The orchestrator's side of model calls, across every agent process: it counts what each call
 * used and cost (UsageLedger, from admission releases and step.completed events) and admits each
 * call of an agent that has a budget (Swarm.spec.policy.budget) — refused with BUDGET_EXCEEDED, or
 * put to a person when the budget says `ask` — and holds it until the Model's shared rate limiter
 * (Model.spec.rateLimit) lets it go.
 */
import { type ErrorShape, runtimeError } from '../../shared/errors/index.ts';
import { newId } from '../../shared/ids.ts';
import type { ControlPayloads } from '../../shared/ipc/control-protocol.ts';
import type { ControlResults } from '../../shared/ipc/control-results.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ModelPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { priceUsage } from '../../shared/usage/price-usage.ts';
import { type ApprovalBroker, BUDGET_TOOL_NAME } from '../approvals/approval-broker.ts';
import { type Amounts, addAmounts, amountsOf, type BudgetOverrun, budgetOverrun, type BudgetScope, describeOverrun, overrunSuggestion } from './budget-check.ts';
import { type LimiterClock, ModelRateLimiter, systemClock } from './model-rate-limiter.ts';
import { UsageLedger } from './usage-ledger.ts';

/** How long a budget `ask` waits for a person before it counts as a refusal. */
const BUDGET_APPROVAL_TIMEOUT_MS = 300_000;
/** The longest pause one 429 report buys: the agent's own retry waits out at most a minute too. */
const MAX_THROTTLE_PAUSE_MS = 60_000;
/** How long after its admission a call's 429 reports may still pause the Model (its retries included). */
const THROTTLE_WINDOW_MS = 300_000;

/** The asking agent process. */
export interface ModelCaller {
  name: string;
  instanceKey: string;
  key: string;
  /** Still running (an admission that waited may outlive its asker). */
  readonly alive: boolean;
}

export interface ModelCallsOptions {
  swarm(): SwarmPlan;
  /** The Model an agent of the current bundle uses. */
  modelOf(agent: string): ModelPlan | undefined;
  approvals: ApprovalBroker;
  logger: RootLogger;
  /** Where today's totals are kept across restarts. */
  dayFile?: string;
  /** The rate limiters' clock (tests use a manual one). */
  clock?: LimiterClock;
}

export type Admission = { ok: true; value: ControlResults['runtime.model.admit'] } | { ok: false; error: ErrorShape };

interface InFlight {
  processKey: string;
  /** The limiter that admitted the call (Model.spec.rateLimit), to release. */
  limiter?: ModelRateLimiter;
  traceId: string;
  instanceKey: string;
  estimate: Amounts;
  /** The limiter let it go (holds one of its places until released). */
  acquired: boolean;
  /** When the limiter let it go (on its clock): 429 reports pause the Model only for a while after. */
  acquiredAt: number;
}

export class ModelCalls {
  readonly ledger: UsageLedger;
  private readonly inFlight = new Map<string, InFlight>();
  /** One per rate-limited Model, by Model name. */
  private readonly limiters = new Map<string, ModelRateLimiter>();

  private readonly clock: LimiterClock;

  constructor(private readonly options: ModelCallsOptions) {
    this.ledger = new UsageLedger(options.dayFile);
    this.clock = options.clock ?? systemClock;
  }

  /** Runtime events forwarded by agents: each completed step's usage is counted. */
  observe(event: RuntimeEvent): void {
    if (event.type !== 'step.completed' || !event.tokenUsage) return;
    this.ledger.record({
      stepId: event.stepId,
      agent: event.agentName,
      instanceKey: event.instanceKey,
      traceId: event.traceId,
      usage: event.tokenUsage,
      ...(event.cost ? { cost: event.cost } : {}),
    });
  }

  async admit(from: ModelCaller, request: ControlPayloads['runtime.model.admit']): Promise<Admission> {
    const started = Date.now();
    const budget = this.options.swarm().budget;
    const model = this.options.modelOf(from.name);
    const currency = budget?.currency;
    const inputCost = priceUsage(model?.pricing, { promptTokens: request.estimatedInputTokens, completionTokens: 0, totalTokens: request.estimatedInputTokens });
    const estimate: Amounts = { tokens: request.estimatedInputTokens, cost: inputCost?.currency === currency ? inputCost?.amount ?? 0 : 0 };
    if (budget) {
      const overrun = budgetOverrun(budget, this.used(request.traceId, from.instanceKey, currency), estimate);
      if (overrun) {
        const refusal = budget.onExceeded === 'ask' ? await this.ask(from, overrun) : describeOverrun(overrun);
        if (refusal !== undefined) {
          this.options.logger.info({ agent: from.name, instanceKey: from.instanceKey, traceId: request.traceId, ...overrun }, 'model call refused: budget exceeded');
          return { ok: false, error: { ...runtimeError('BUDGET_EXCEEDED', refusal, { ...overrun }), suggestion: overrunSuggestion(overrun, budget.onExceeded) } };
        }
      }
    }
    const admissionId = newId('adm');
    const limiter = model ? this.limiterFor(model) : undefined;
    // Reserved before any wait, so calls admitted together cannot overshoot the budget together.
    const entry: InFlight = { processKey: from.key, traceId: request.traceId, instanceKey: from.instanceKey, estimate, acquired: false, acquiredAt: 0, ...(limiter ? { limiter } : {}) };
    this.inFlight.set(admissionId, entry);
    if (limiter) {
      await limiter.acquire();
      entry.acquired = true;
      entry.acquiredAt = this.clock.now();
      if (!from.alive || !this.inFlight.has(admissionId)) {
        // The asker died while it waited: give its turn back.
        this.inFlight.delete(admissionId);
        limiter.release(0);
        return { ok: false, error: runtimeError('AGENT_UNAVAILABLE', `agent '${from.name}' stopped while its model call waited for the rate limit`) };
      }
    }
    const waitedMs = Date.now() - started;
    if (waitedMs > 0 && limiter) this.options.logger.debug({ agent: from.name, model: model?.name, waitedMs }, 'model call admitted after a rate-limit wait');
    return { ok: true, value: { admissionId, waitedMs } };
  }

  release(from: ModelCaller, payload: ControlPayloads['runtime.model.release']): void {
    const entry = this.inFlight.get(payload.admissionId);
    if (!entry || entry.processKey !== from.key) return;
    this.inFlight.delete(payload.admissionId);
    entry.limiter?.release(payload.usage ? payload.usage.promptTokens + payload.usage.completionTokens : 0);
    if (payload.usage) {
      this.ledger.record({
        stepId: payload.stepId,
        agent: from.name,
        instanceKey: from.instanceKey,
        traceId: entry.traceId,
        usage: payload.usage,
        ...(payload.cost ? { cost: payload.cost } : {}),
      });
    }
  }

  /**
   * A provider 429 with Retry-After: the Model pauses for every agent using it (when it has a
   * rateLimit). Agent processes are not trusted with that power beyond what a real 429 needs: a
   * report counts only while the process has a call of that Model in flight, pauses at most a
   * minute, and never past THROTTLE_WINDOW_MS after the call was let go — so one process cannot
   * hold a shared Model paused for the other agents.
   */
  throttled(from: ModelCaller, payload: ControlPayloads['runtime.model.throttled']): void {
    const model = this.options.modelOf(from.name);
    const limiter = model ? this.limiterFor(model) : undefined;
    if (!limiter) return;
    const call = [...this.inFlight.values()].find((entry) => entry.processKey === from.key && entry.acquired && entry.limiter === limiter);
    if (!call) {
      this.options.logger.warn({ agent: from.name, instanceKey: from.instanceKey, model: model?.name }, 'ignored a throttle report from an agent with no call of the model in flight');
      return;
    }
    const windowLeft = call.acquiredAt + THROTTLE_WINDOW_MS - this.clock.now();
    const pauseMs = Math.max(0, Math.min(payload.retryAfterMs, MAX_THROTTLE_PAUSE_MS, windowLeft));
    limiter.pause(pauseMs);
    this.options.logger.info({ agent: from.name, model: model?.name, retryAfterMs: payload.retryAfterMs, pauseMs }, 'provider throttled the model: paused for every agent');
  }

  /** The process is gone: its calls in flight will never be released. */
  dropFor(processKey: string): void {
    for (const [id, entry] of this.inFlight) {
      if (entry.processKey !== processKey) continue;
      this.inFlight.delete(id);
      // One still waiting gives its place back itself once admitted (admit sees it was dropped).
      if (entry.acquired) entry.limiter?.release(0);
    }
  }

  /** The Model's shared limiter; a reload that changed the limits starts a new one. */
  private limiterFor(model: ModelPlan): ModelRateLimiter | undefined {
    if (!model.rateLimit) return undefined;
    const existing = this.limiters.get(model.name);
    if (existing && JSON.stringify(existing.limits) === JSON.stringify(model.rateLimit)) return existing;
    const limiter = new ModelRateLimiter(model.rateLimit, this.clock);
    this.limiters.set(model.name, limiter);
    return limiter;
  }

  private used(traceId: string, instanceKey: string, currency: string | undefined): Record<BudgetScope, Amounts> {
    let turn = amountsOf(this.ledger.trace(traceId), currency);
    let instance = amountsOf(this.ledger.instanceToday(instanceKey), currency);
    let swarm = amountsOf(this.ledger.swarmToday(), currency);
    for (const entry of this.inFlight.values()) {
      if (entry.traceId === traceId) turn = addAmounts(turn, entry.estimate);
      if (entry.instanceKey === instanceKey) instance = addAmounts(instance, entry.estimate);
      swarm = addAmounts(swarm, entry.estimate);
    }
    return { perTurn: turn, perInstancePerDay: instance, perSwarmPerDay: swarm };
  }

  /** onExceeded: ask — a person decides (the tool approvals' channel); resolves with the refusal, or undefined when approved. */
  private ask(from: ModelCaller, overrun: BudgetOverrun): Promise<string | undefined> {
    const message = describeOverrun(overrun);
    return new Promise((resolve) => {
      this.options.approvals.open(
        { agent: from.name, instanceKey: from.instanceKey, toolName: BUDGET_TOOL_NAME, toolCallId: newId('budget'), args: { ...overrun }, reason: message, processKey: from.key },
        BUDGET_APPROVAL_TIMEOUT_MS,
        (outcome) => resolve(outcome.approved ? undefined : `${message}; refused (${outcome.decidedBy}${outcome.reason ? `: ${outcome.reason}` : ''})`),
      );
    });
  }
}
