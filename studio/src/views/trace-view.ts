/**
 * Trace: a waterfall of one traceId across agents — turn → step → model call → tool call → the
 * callee's turn — with durations, token usage and errors. Pick a recent trace (or follow a link
 * `#trace/<id>`); the rows are a tree: arrow keys move, Enter or a click shows a span's details.
 * A trace still running grows as its events arrive.
 */
import { errorLine } from '../error-line.ts';
import { fill, h } from '../dom.ts';
import { formatDuration, formatTime, prettyJson } from '../format.ts';
import { isObject, type Json, num, objects, str } from '../json-fields.ts';
import { toLiveEvent } from '../model/live-event.ts';
import { buildSpanTree, flattenSpans, type Span } from '../model/span-tree.ts';
import { debounce } from '../schedule.ts';
import type { RuntimeEvent } from '../../../shared/types/turns.ts';
import type { StudioContext, View } from '../view.ts';

export function traceView(ctx: StudioContext): View {
  const picker = h('select', { id: 'trace-picker' });
  const waterfall = h('ol', { class: 'waterfall', role: 'tree', 'aria-label': 'Spans of the trace' });
  const details = h('div', { class: 'span-details', role: 'region', 'aria-label': 'Span details', 'aria-live': 'polite' });
  const heading = h('p', { class: 'trace-heading' });
  const error = errorLine();
  const element = h(
    'section',
    { 'aria-labelledby': 'trace-title' },
    h('h2', { id: 'trace-title' }, 'Trace'),
    h('div', { class: 'toolbar' }, h('label', { for: 'trace-picker' }, 'Trace'), picker, h('button', { type: 'button', onclick: () => void loadList() }, 'Refresh list')),
    error.element,
    heading,
    h('div', { class: 'trace-body' }, waterfall, details),
  );
  let traceId = '';
  let events: RuntimeEvent[] = [];
  let selected = '';
  let visible = false;
  picker.addEventListener('change', () => ctx.navigate('trace', picker.value));

  const loadList = async () => {
    try {
      const traces = objects(await ctx.api.get('/v1/traces?limit=50'), 'traces');
      const options = traces.map((t) => h('option', { value: str(t, 'traceId') }, traceLabel(t)));
      if (traceId !== '' && !traces.some((t) => str(t, 'traceId') === traceId)) options.unshift(h('option', { value: traceId }, traceId));
      fill(picker, h('option', { value: '' }, traces.length === 0 ? 'No traces yet' : 'Choose a trace…'), ...options);
      picker.value = traceId;
      error.clear();
    } catch (e) {
      error.show(e);
    }
  };
  const loadTrace = async (id: string) => {
    traceId = id;
    picker.value = id;
    events = [];
    selected = '';
    fill(details);
    if (id === '') return render();
    try {
      const body = await ctx.api.get(`/v1/traces/${encodeURIComponent(id)}`);
      if (traceId !== id) return;
      events = objects(body, 'events').flatMap((e) => toLiveEvent(str(e, 'type'), e) ?? []).filter((e): e is RuntimeEvent => e.type !== 'step.delta');
      error.clear();
    } catch (e) {
      error.show(e);
    }
    render();
  };
  const render = () => {
    if (traceId === '') {
      heading.textContent = 'Pick a trace to see its spans. Every message to an agent starts one; calls to other agents join it.';
      return fill(waterfall);
    }
    const tree = buildSpanTree(events);
    const total = tree.end - tree.start;
    const rows = flattenSpans(tree.roots);
    heading.textContent = `Trace ${traceId} · ${rows.filter((r) => r.span.kind === 'turn').length} turns · ${formatDuration(total)}`;
    fill(
      waterfall,
      ...rows.map(({ span, depth }, index) => {
        const left = ((span.start - tree.start) / total) * 100;
        const width = Math.max((((span.end ?? Date.now()) - span.start) / total) * 100, 0.4);
        const label = spanLabel(span);
        return h(
          'li',
          {
            role: 'treeitem',
            'aria-level': depth + 1,
            'aria-selected': span.id === selected ? 'true' : 'false',
            tabindex: span.id === selected || (selected === '' && index === 0) ? 0 : -1,
            class: `span span-${span.kind} span-${span.status}`,
            'data-span': span.id,
            'data-agent': span.agent,
            'data-kind': span.kind,
            onclick: () => select(span),
            onkeydown: (event: Event) => onKey(event, span),
          },
          h('span', { class: 'span-label' }, h('span', { class: 'indent', 'data-depth': depth }), label),
          h('span', { class: 'span-track', 'aria-hidden': 'true' }, h('span', { class: 'span-bar', 'data-left': left.toFixed(2), 'data-width': width.toFixed(2) })),
          h('span', { class: 'span-duration' }, span.end === undefined ? 'running' : formatDuration(span.end - span.start)),
        );
      }),
    );
    // CSP forbids inline styles: position the bars through the CSSOM instead.
    for (const bar of waterfall.querySelectorAll<HTMLElement>('.span-bar')) {
      bar.style.marginLeft = `${bar.dataset.left ?? 0}%`;
      bar.style.width = `${bar.dataset.width ?? 0}%`;
    }
    for (const indent of waterfall.querySelectorAll<HTMLElement>('.indent')) indent.style.width = `${Number(indent.dataset.depth ?? 0) * 1.1}em`;
    const current = rows.find((r) => r.span.id === selected)?.span;
    if (current) showDetails(current);
  };
  const select = (span: Span) => {
    selected = span.id;
    render();
    waterfall.querySelector<HTMLElement>(`[data-span="${CSS.escape(span.id)}"]`)?.focus();
  };
  const onKey = (event: Event, span: Span) => {
    if (!(event instanceof KeyboardEvent)) return;
    const items = [...waterfall.querySelectorAll<HTMLElement>('[role="treeitem"]')];
    const at = items.findIndex((item) => item.dataset.span === span.id);
    const move = (to: number) => {
      const target = items[Math.max(0, Math.min(items.length - 1, to))];
      if (!target) return;
      for (const item of items) item.tabIndex = -1;
      target.tabIndex = 0;
      target.focus();
    };
    if (event.key === 'ArrowDown') move(at + 1);
    else if (event.key === 'ArrowUp') move(at - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(items.length - 1);
    else if (event.key === 'Enter' || event.key === ' ') select(span);
    else return;
    event.preventDefault();
  };
  const showDetails = (span: Span) => {
    const facts: Array<[string, string]> = [
      ['Span', spanLabel(span)],
      ['Agent', `${span.agent} @ ${span.instanceKey}`],
      ['Status', span.status],
      ['Started', new Date(span.start).toISOString()],
      ['Duration', span.end === undefined ? 'running' : formatDuration(span.end - span.start)],
    ];
    const extra = Object.entries(span.details).filter(([k, v]) => v !== undefined && k !== 'duration');
    fill(
      details,
      h('h3', {}, spanLabel(span)),
      h('dl', {}, ...facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]), ...extra.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, detailValue(k, v))])),
    );
  };
  // Listing reads every instance's log: at most every two seconds while turns keep coming.
  const refreshList = debounce(() => void loadList(), 2_000);
  const rerender = debounce(() => render(), 100);
  ctx.live.subscribe((event) => {
    if (!visible || event.type === 'step.delta') return;
    if (event.traceId === traceId) {
      events.push(event);
      rerender();
    }
    if (event.type === 'turn.started' || event.type === 'turn.completed' || event.type === 'turn.failed') refreshList();
  });
  return {
    element,
    show(params) {
      visible = true;
      const id = params[0] ?? traceId;
      void loadList();
      void loadTrace(id);
    },
    hide() {
      visible = false;
    },
  };
}

function detailValue(key: string, value: unknown): Node | string {
  if (isObject(value) || Array.isArray(value)) return h('pre', {}, prettyJson(value));
  if (typeof value === 'number' && /duration/i.test(key)) return formatDuration(value);
  return String(value);
}

function spanLabel(span: Span): string {
  if (span.kind === 'turn') return `${span.agent} turn`;
  if (span.kind === 'tool') {
    const args = span.details.args;
    const target = isObject(args) && typeof args.target === 'string' ? ` → ${args.target}` : '';
    return `tool ${span.name}${target}`;
  }
  return span.name;
}

function traceLabel(t: Json): string {
  const duration = num(t, 'durationMs');
  const agents = Array.isArray(t.agents) ? t.agents.length : 1;
  return `${formatTime(str(t, 'startedAt'))} · ${str(t, 'agent')} @ ${str(t, 'instanceKey')} · ${str(t, 'status')}${duration !== null ? ` · ${formatDuration(duration)}` : ''} · ${agents} agent${agents === 1 ? '' : 's'}`;
}
