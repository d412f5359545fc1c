/**
 * The orchestrator's side of model calls, across every agent process: it counts what each call
 * used and cost (UsageLedger, from step.completed events and admission releases).
 */
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { UsageLedger } from './usage-ledger.ts';

export class ModelCalls {
  readonly ledger: UsageLedger;

  constructor(options: { dayFile?: string }) {
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
}
