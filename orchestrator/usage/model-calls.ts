/**
 * The orchestrator's side of model calls, across every agent process: it counts what each call
 * used and cost (UsageLedger, from admission releases and step.completed events) and admits each
 * call of an agent that has a budget (Swarm.spec.policy.budget) — refused with BUDGET_EXCEEDED, or
 * put to a person when the budget says `ask`.
 */
import { type ErrorShape, runtimeError } from '../../shared/errors/index.ts';
import { newId } from '../../shared/ids.ts';
import type { ControlPayloads } from '../../shared/ipc/control-protocol.ts';
import type { ControlResults } from '../../shared/ipc/control-results.ts';
import type { RootLogger } from '../../shared/logger.ts';
import type { ModelPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { priceUsage } from '../../shared/usage/price-usage.ts';
import type { ApprovalBroker } from '../approvals/approval-broker.ts';
import { type Amounts, addAmounts, amountsOf, type BudgetOverrun, budgetOverrun, type BudgetScope, describeOverrun } from './budget-check.ts';
import { UsageLedger } from './usage-ledger.ts';

/** How long a budget `ask` waits for a person before it counts as a refusal. */
const BUDGET_APPROVAL_TIMEOUT_MS = 300_000;

/** The asking agent process. */
export interface ModelCaller {
  name: string;
  instanceKey: string;
  key: string;
}

export interface ModelCallsOptions {
  swarm(): SwarmPlan;
  /** The Model an agent of the current bundle uses. */
  modelOf(agent: string): ModelPlan | undefined;
  approvals: ApprovalBroker;
  logger: RootLogger;
  /** Where today's totals are kept across restarts. */
  dayFile?: string;
}

export type Admission = { ok: true; value: ControlResults['runtime.model.admit'] } | { ok: false; error: ErrorShape };

interface InFlight {
  processKey: string;
  traceId: string;
  instanceKey: string;
  estimate: Amounts;
}

export class ModelCalls {
  readonly ledger: UsageLedger;
  private readonly inFlight = new Map<string, InFlight>();

  constructor(private readonly options: ModelCallsOptions) {
    this.ledger = new UsageLedger(options.dayFile);
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
          return { ok: false, error: runtimeError('BUDGET_EXCEEDED', refusal, { ...overrun }) };
        }
      }
    }
    const admissionId = newId('adm');
    // Reserved before any wait, so calls admitted together cannot overshoot the budget together.
    this.inFlight.set(admissionId, { processKey: from.key, traceId: request.traceId, instanceKey: from.instanceKey, estimate });
    return { ok: true, value: { admissionId, waitedMs: Date.now() - started } };
  }

  release(from: ModelCaller, payload: ControlPayloads['runtime.model.release']): void {
    const entry = this.inFlight.get(payload.admissionId);
    if (!entry || entry.processKey !== from.key) return;
    this.inFlight.delete(payload.admissionId);
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

  /** A provider 429 (rate limits pause the Model for every agent: model-rate-limiter.ts). */
  throttled(from: ModelCaller, payload: ControlPayloads['runtime.model.throttled']): void {
    this.options.logger.info({ agent: from.name, retryAfterMs: payload.retryAfterMs }, 'provider throttled a model call');
  }

  /** The process is gone: its calls in flight will never be released. */
  dropFor(processKey: string): void {
    for (const [id, entry] of this.inFlight) if (entry.processKey === processKey) this.inFlight.delete(id);
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
        { agent: from.name, instanceKey: from.instanceKey, toolName: 'model-call', toolCallId: newId('budget'), args: { ...overrun }, reason: message, processKey: from.key },
        BUDGET_APPROVAL_TIMEOUT_MS,
        (outcome) => resolve(outcome.approved ? undefined : `${message}; refused (${outcome.decidedBy}${outcome.reason ? `: ${outcome.reason}` : ''})`),
      );
    });
  }
}
