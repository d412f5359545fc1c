import { describe, expect, test } from 'bun:test';
import { MetricSeries, rateBetween, sampleOf } from '../../studio/src/model/metric-series.ts';

const scrape = (turnsOk: number, turnsFailed: number, tools: number, tokens: number) => `# HELP goondan_turns_total Finished turns, by agent and result.
# TYPE goondan_turns_total counter
goondan_turns_total{agent="writer",result="text_response"} ${turnsOk}
goondan_turns_total{agent="writer",result="failed"} ${turnsFailed}
goondan_tool_calls_total{tool="agents__request",status="ok"} ${tools}
goondan_tokens_total{agent="writer",kind="prompt"} ${tokens / 2}
goondan_tokens_total{agent="writer",kind="completion"} ${tokens / 2}
goondan_uptime_seconds 12.5
`;

describe('metrics: counters from /metrics, rates between scrapes', () => {
  test('a scrape sums each counter over its labels; failed turns are counted apart', () => {
    expect(sampleOf(scrape(5, 1, 3, 100), 1000)).toEqual({ at: 1000, turns: 6, failedTurns: 1, toolCalls: 3, tokens: 100 });
  });

  test('rates are per second between two scrapes; the error rate is failed turns per turn', () => {
    const rate = rateBetween(sampleOf(scrape(5, 1, 3, 100), 0), sampleOf(scrape(7, 3, 7, 300), 2000));
    expect(rate).toEqual({ at: 2000, turnsPerSecond: 2, toolCallsPerSecond: 2, tokensPerSecond: 100, errorRate: 0.5 });
  });

  test('no turns in an interval is a 0 % error rate, not a division by zero', () => {
    expect(rateBetween(sampleOf(scrape(1, 0, 0, 0), 0), sampleOf(scrape(1, 0, 0, 0), 1000)).errorRate).toBe(0);
  });

  test('a counter that went down (the daemon restarted) counts from zero again', () => {
    const rate = rateBetween(sampleOf(scrape(50, 0, 10, 1000), 0), sampleOf(scrape(2, 0, 1, 10), 1000));
    expect(rate.turnsPerSecond).toBe(2);
    expect(rate.tokensPerSecond).toBe(10);
  });

  test('the series keeps only the window', () => {
    const series = new MetricSeries(10_000);
    for (let t = 0; t <= 30_000; t += 2_000) series.add(sampleOf(scrape(t / 1000, 0, 0, 0), t));
    expect(series.points[0]?.at).toBe(20_000);
    expect(series.points.at(-1)?.at).toBe(30_000);
    expect(series.points.every((p) => p.turnsPerSecond === 1)).toBe(true);
  });
});
