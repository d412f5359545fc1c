/**
 * The Metrics view's numbers: `/metrics` (Prometheus text) scraped every few seconds, turned into
 * per-interval rates — turns/s, tool calls/s, tokens/s — and the error rate (failed turns per
 * turn). A counter that went down (the daemon restarted) counts as starting again from zero.
 * Pure: no DOM, unit-tested.
 */

export interface CounterSample {
  at: number;
  turns: number;
  failedTurns: number;
  toolCalls: number;
  tokens: number;
}

export interface RatePoint {
  at: number;
  turnsPerSecond: number;
  toolCallsPerSecond: number;
  tokensPerSecond: number;
  /** Failed turns / turns in the interval, 0 when there were none. */
  errorRate: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/;

/** Sums of the counters the view charts, from one scrape. */
export function sampleOf(text: string, at: number): CounterSample {
  const sample: CounterSample = { at, turns: 0, failedTurns: 0, toolCalls: 0, tokens: 0 };
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const [, name, labels = '', raw = ''] = match;
    const value = Number(raw);
    if (!Number.isFinite(value)) continue;
    if (name === 'goondan_turns_total') {
      sample.turns += value;
      if (/result="(failed|error)"/.test(labels)) sample.failedTurns += value;
    } else if (name === 'goondan_tool_calls_total') sample.toolCalls += value;
    else if (name === 'goondan_tokens_total') sample.tokens += value;
  }
  return sample;
}

export function rateBetween(previous: CounterSample, current: CounterSample): RatePoint {
  const seconds = Math.max((current.at - previous.at) / 1000, 0.001);
  const delta = (key: 'turns' | 'failedTurns' | 'toolCalls' | 'tokens') => {
    const d = current[key] - previous[key];
    return d >= 0 ? d : current[key];
  };
  const turns = delta('turns');
  return {
    at: current.at,
    turnsPerSecond: turns / seconds,
    toolCallsPerSecond: delta('toolCalls') / seconds,
    tokensPerSecond: delta('tokens') / seconds,
    errorRate: turns > 0 ? Math.min(1, delta('failedTurns') / turns) : 0,
  };
}

/** A rolling window of rate points: the last `windowMs` of scrapes. */
export class MetricSeries {
  private last: CounterSample | undefined;
  readonly points: RatePoint[] = [];

  constructor(private readonly windowMs: number) {}

  add(sample: CounterSample): void {
    if (this.last) this.points.push(rateBetween(this.last, sample));
    this.last = sample;
    while (this.points.length > 0 && (this.points[0]?.at ?? 0) < sample.at - this.windowMs) this.points.shift();
  }
}
