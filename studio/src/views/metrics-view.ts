/**
 * Metrics: turns/s, tool calls/s, tokens/s and the error rate over the last minutes, as small
 * charts computed from `/metrics` scraped every few seconds since the page opened.
 */
import { errorLine } from '../error-line.ts';
import { fill, h, svg } from '../dom.ts';
import { MetricSeries, type RatePoint, sampleOf } from '../model/metric-series.ts';
import { poller } from '../schedule.ts';
import type { StudioContext, View } from '../view.ts';

const SCRAPE_MS = 2_000;
const WINDOW_MS = 5 * 60_000;
const WIDTH = 300;
const HEIGHT = 64;

interface Chart {
  title: string;
  value(point: RatePoint): number;
  format(value: number): string;
}

const CHARTS: Chart[] = [
  { title: 'Turns per second', value: (p) => p.turnsPerSecond, format: (v) => v.toFixed(2) },
  { title: 'Tool calls per second', value: (p) => p.toolCallsPerSecond, format: (v) => v.toFixed(2) },
  { title: 'Tokens per second', value: (p) => p.tokensPerSecond, format: (v) => v.toFixed(0) },
  { title: 'Error rate', value: (p) => p.errorRate, format: (v) => `${(v * 100).toFixed(0)} %` },
];

export function metricsView(ctx: StudioContext): View {
  const series = new MetricSeries(WINDOW_MS);
  const grid = h('div', { class: 'charts' });
  const error = errorLine();
  const element = h(
    'section',
    { 'aria-labelledby': 'metrics-title' },
    h('h2', { id: 'metrics-title' }, 'Metrics'),
    h('p', { class: 'hint' }, `Up to the last ${WINDOW_MS / 60_000} minutes since this page opened, sampled from /metrics every ${SCRAPE_MS / 1000} s.`),
    error.element,
    grid,
  );
  let visible = false;
  const render = () => fill(grid, ...CHARTS.map((chart) => chartCard(chart, series.points, Date.now())));
  const scrape = poller(async () => {
    try {
      series.add(sampleOf(await ctx.api.text('/metrics'), Date.now()));
      error.clear();
    } catch (e) {
      error.show(e);
    }
    if (visible) render();
  }, SCRAPE_MS);
  // Rates need history: sample from the start, whichever view is open.
  scrape.start();
  return {
    element,
    show() {
      visible = true;
      render();
    },
    hide() {
      visible = false;
    },
  };
}

/**
 * A sparkline ending now, scaled to its peak, over the window — or, until the page has been open
 * that long, over the time since the first sample.
 */
function chartCard(chart: Chart, points: readonly RatePoint[], at: number): HTMLElement {
  const values = points.map(chart.value);
  const now = values.at(-1);
  const peak = values.length > 0 ? Math.max(...values) : 0;
  const scale = peak > 0 ? peak : 1;
  const span = Math.min(WINDOW_MS, Math.max(at - (points[0]?.at ?? at), SCRAPE_MS));
  const x = (t: number) => Math.max(0, ((t - (at - span)) / span) * WIDTH);
  const coords = points.map((p, i) => `${x(p.at).toFixed(1)},${(HEIGHT - 2 - ((values[i] ?? 0) / scale) * (HEIGHT - 4)).toFixed(1)}`);
  const summary = now === undefined ? `${chart.title}: collecting samples` : `${chart.title}: now ${chart.format(now)}, peak ${chart.format(peak)} over the window`;
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, h('span', {}, chart.title), h('strong', {}, now === undefined ? '…' : chart.format(now))),
    svg(
      'svg',
      { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': summary },
      svg('line', { x1: 0, y1: HEIGHT - 1, x2: WIDTH, y2: HEIGHT - 1, class: 'axis' }),
      coords.length > 1 ? svg('polyline', { points: coords.join(' '), class: 'line' }) : null,
    ),
    h('p', { class: 'meta axis-labels' }, h('span', {}, span >= 60_000 ? `−${Math.round(span / 60_000)} min` : `−${Math.round(span / 1000)} s`), h('span', {}, `peak ${chart.format(peak)}`), h('span', {}, 'now')),
  );
}
