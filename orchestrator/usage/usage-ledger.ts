/**
 * What every model call of the swarm used and cost, counted once per step (a step is reported
 * by its admission's release and again by its step.completed event): totals per agent instance,
 * per trace (the most recent traces) and per UTC day for each instance key and the whole swarm.
 * The day totals are kept in `workspaces/<id>/usage-today.json` so a daemon restart does not
 * reset a day budget. The file is rewritten at most every DAY_FILE_SAVE_MS (and on flush()): it
 * holds every instance key of the day, and writing it per step put O(instances) of work on every
 * model call's path (issue 12); a crash forgets at most that much of the day.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RecentSet } from '../../shared/recent-set.ts';
import { isJsonObject } from '../../shared/types/json.ts';
import type { Cost, TokenUsage } from '../../shared/types/turns.ts';
import { addToTotals, emptyTotals, type UsageTotals } from '../../shared/usage/usage-totals.ts';

/** Traces kept for per-trace totals (perTurn budgets, GET /v1/usage): the most recent ones. */
const MAX_TRACES = 2_000;
/** Step ids remembered to count each step once. */
const MAX_STEP_IDS = 10_000;
export const DAY_FILE_SAVE_MS = 1_000;

export interface UsageRecord {
  stepId: string;
  agent: string;
  instanceKey: string;
  traceId: string;
  usage: TokenUsage;
  cost?: Cost;
}

interface DayTotals {
  day: string;
  swarm: UsageTotals;
  instances: Record<string, UsageTotals>;
}

export class UsageLedger {
  private readonly byInstance = new Map<string, { agent: string; instanceKey: string; totals: UsageTotals }>();
  private readonly byTrace = new Map<string, UsageTotals>();
  private readonly counted = new RecentSet<string>(MAX_STEP_IDS);
  private today: DayTotals;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private dirMade = false;

  constructor(
    private readonly dayFile: string | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.today = this.loadDay() ?? { day: this.currentDay(), swarm: emptyTotals(), instances: {} };
  }

  /** Counts a step's usage; a step already counted is ignored. */
  record(entry: UsageRecord): boolean {
    if (!this.counted.add(entry.stepId)) return false;
    const key = `${entry.agent}\u0000${entry.instanceKey}`;
    const instance = this.byInstance.get(key) ?? { agent: entry.agent, instanceKey: entry.instanceKey, totals: emptyTotals() };
    this.byInstance.set(key, instance);
    addToTotals(instance.totals, entry.usage, entry.cost);
    const trace = this.byTrace.get(entry.traceId) ?? emptyTotals();
    this.byTrace.delete(entry.traceId);
    this.byTrace.set(entry.traceId, trace); // most recently used last
    if (this.byTrace.size > MAX_TRACES) this.byTrace.delete(this.byTrace.keys().next().value ?? '');
    addToTotals(trace, entry.usage, entry.cost);
    const day = this.day();
    addToTotals(day.swarm, entry.usage, entry.cost);
    day.instances[entry.instanceKey] ??= emptyTotals();
    addToTotals(day.instances[entry.instanceKey] ?? emptyTotals(), entry.usage, entry.cost);
    this.scheduleSave();
    return true;
  }

  /** Writes the day totals now if they changed since the last write (daemon stop). */
  flush(): void {
    if (this.saveTimer === undefined) return;
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.saveDay();
  }

  private scheduleSave(): void {
    if (!this.dayFile || this.saveTimer !== undefined) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.saveDay();
    }, DAY_FILE_SAVE_MS);
    this.saveTimer.unref?.();
  }

  instance(agent: string, instanceKey: string): UsageTotals | undefined {
    return this.byInstance.get(`${agent}\u0000${instanceKey}`)?.totals;
  }

  instances(): Array<{ agent: string; instanceKey: string; totals: UsageTotals }> {
    return [...this.byInstance.values()];
  }

  trace(traceId: string): UsageTotals {
    return this.byTrace.get(traceId) ?? emptyTotals();
  }

  traces(): Array<{ traceId: string; totals: UsageTotals }> {
    return [...this.byTrace].map(([traceId, totals]) => ({ traceId, totals }));
  }

  /** Today's (UTC) totals of one instance key, every agent under it. */
  instanceToday(instanceKey: string): UsageTotals {
    return this.day().instances[instanceKey] ?? emptyTotals();
  }

  swarmToday(): UsageTotals {
    return this.day().swarm;
  }

  get dayName(): string {
    return this.day().day;
  }

  private day(): DayTotals {
    const current = this.currentDay();
    if (this.today.day !== current) this.today = { day: current, swarm: emptyTotals(), instances: {} };
    return this.today;
  }

  private currentDay(): string {
    return this.now().toISOString().slice(0, 10);
  }

  private loadDay(): DayTotals | undefined {
    if (!this.dayFile) return undefined;
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.dayFile, 'utf8'));
      if (!isJsonObject(parsed) || parsed.day !== this.currentDay() || !isTotals(parsed.swarm) || !isJsonObject(parsed.instances)) return undefined;
      const instances: Record<string, UsageTotals> = {};
      for (const [key, value] of Object.entries(parsed.instances)) if (isTotals(value)) instances[key] = value;
      return { day: parsed.day, swarm: parsed.swarm, instances };
    } catch {
      return undefined; // no file yet, or a torn one: the day starts from zero
    }
  }

  private saveDay(): void {
    if (!this.dayFile) return;
    try {
      if (!this.dirMade) mkdirSync(dirname(this.dayFile), { recursive: true });
      this.dirMade = true;
      const temp = `${this.dayFile}.tmp`;
      writeFileSync(temp, JSON.stringify(this.today));
      renameSync(temp, this.dayFile);
    } catch {
      // Counting goes on in memory; only a restart's memory of the day is lost.
    }
  }
}

function isTotals(value: unknown): value is UsageTotals {
  return (
    isJsonObject(value) &&
    typeof value.calls === 'number' &&
    typeof value.promptTokens === 'number' &&
    typeof value.completionTokens === 'number' &&
    typeof value.cachedPromptTokens === 'number' &&
    isJsonObject(value.cost) &&
    Object.values(value.cost).every((amount) => typeof amount === 'number')
  );
}
