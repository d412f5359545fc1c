/**
 * Swarm: the agents and who called whom, drawn from real traffic (past calls from the daemon's
 * state, new ones live from the event stream), each node with its live instances and their
 * status. The same facts are listed in tables below the drawing for keyboard and screen readers.
 */
import { addCall, agentCallOf, type CallEdge, callIdOf } from '../../../shared/observe/agent-calls.ts';
import { errorLine } from '../error-line.ts';
import { fill, h, svg } from '../dom.ts';
import { formatTime } from '../format.ts';
import { type Json, num, objects, str } from '../json-fields.ts';
import { layoutSwarm, type NodePlace } from '../model/swarm-layout.ts';
import { debounce, poller } from '../schedule.ts';
import type { StudioContext, View } from '../view.ts';

const NODE_W = 184;
const NODE_H = 60;
const COL_GAP = 250;
const ROW_GAP = 84;
const PAD = 16;
const REFRESH_MS = 3_000;
const ACTIVE_MS = 10_000;

interface Connection {
  name: string;
  connector: string;
  agents: string[];
}

export function swarmView(ctx: StudioContext): View {
  const edges = new Map<string, CallEdge>();
  let connections: Connection[] = [];
  let processes: Json[] = [];
  const drawing = h('div', { class: 'graph' });
  const tables = h('div', { class: 'graph-tables' });
  const error = errorLine();
  const element = h(
    'section',
    { 'aria-labelledby': 'swarm-title' },
    h('h2', { id: 'swarm-title' }, `Swarm ${ctx.swarm.name}`),
    error.element,
    drawing,
    tables,
  );

  const instancesOf = (agent: string) => processes.filter((p) => str(p, 'kind') === 'agent' && str(p, 'agent') === agent);
  const statusLine = (agent: string) => {
    const rows = instancesOf(agent);
    if (rows.length === 0) return 'no live instances';
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(str(row, 'status'), (counts.get(str(row, 'status')) ?? 0) + 1);
    return `${rows.length} live: ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ')}`;
  };
  const render = () => {
    const calls = [...edges.values()];
    const places = layoutSwarm({ entryAgent: ctx.swarm.entryAgent, agents: ctx.swarm.agents, connections, calls });
    const at = new Map(places.map((p) => [`${p.kind}:${p.id}`, p]));
    const columns = Math.max(1, ...places.map((p) => p.column + 1));
    const rows = Math.max(1, ...places.map((p) => p.row + 1));
    const width = PAD * 2 + (columns - 1) * COL_GAP + NODE_W;
    const height = PAD * 2 + (rows - 1) * ROW_GAP + NODE_H + 40;
    const now = Date.now();
    const links: SVGElement[] = [];
    for (const c of connections) {
      for (const agent of c.agents) links.push(edge(at.get(`connection:${c.name}`), at.get(`agent:${agent}`), 'link link-connection', ''));
    }
    for (const call of calls) {
      const active = now - Date.parse(call.lastAt) < ACTIVE_MS;
      links.push(edge(at.get(`agent:${call.from}`), at.get(`agent:${call.to}`), `link${active ? ' link-active' : ''}`, `×${call.count}`));
    }
    const summary = `${ctx.swarm.agents.length} agents; ${calls.length === 0 ? 'no calls between agents yet' : calls.map((c) => `${c.from} called ${c.to} ${c.count} times`).join('; ')}`;
    fill(
      drawing,
      svg(
        'svg',
        { viewBox: `0 0 ${width} ${height}`, width, role: 'img', 'aria-label': `Call graph: ${summary}`, class: 'graph-svg' },
        svg('defs', {}, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow' }))),
        ...links,
        ...places.map((p) => node(p)),
      ),
    );
    fill(
      tables,
      h(
        'table',
        {},
        h('caption', {}, 'Agents'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Agent'), h('th', { scope: 'col' }, 'Live instances'))),
        h('tbody', {}, ...ctx.swarm.agents.map((a) => h('tr', {}, h('th', { scope: 'row' }, a, a === ctx.swarm.entryAgent ? ' (entry)' : ''), h('td', {}, statusLine(a))))),
      ),
      h(
        'table',
        {},
        h('caption', {}, 'Calls between agents'),
        h('thead', {}, h('tr', {}, ...['From', 'To', 'Calls', 'Last'].map((c) => h('th', { scope: 'col' }, c)))),
        h(
          'tbody',
          {},
          ...(calls.length === 0
            ? [h('tr', {}, h('td', { colspan: 4, class: 'empty' }, 'No calls between agents yet.'))]
            : calls.map((c) => h('tr', {}, h('td', {}, c.from), h('td', {}, c.to), h('td', { class: 'num' }, c.count), h('td', {}, formatTime(c.lastAt))))),
        ),
      ),
    );
  };
  const node = (p: NodePlace) => {
    const { x, y } = position(p);
    const rows = p.kind === 'agent' ? instancesOf(p.id) : processes.filter((r) => str(r, 'connection') === p.id);
    const state = rows.some((r) => (num(r, 'crashes') ?? 0) > 0 || ['failed', 'crashLoopBackOff'].includes(str(r, 'status')))
      ? 'error'
      : rows.some((r) => str(r, 'status') === 'processing')
        ? 'busy'
        : rows.length > 0
          ? 'up'
          : 'down';
    const subtitle = p.kind === 'agent' ? statusLine(p.id) : `connection · ${connections.find((c) => c.name === p.id)?.connector ?? ''}`;
    return svg(
      'g',
      { class: `node node-${p.kind} node-${state}`, transform: `translate(${x},${y})` },
      svg('rect', { width: NODE_W, height: NODE_H, rx: 8 }),
      svg('text', { x: 12, y: 24, class: 'node-name' }, p.id + (p.id === ctx.swarm.entryAgent && p.kind === 'agent' ? ' ★' : '')),
      svg('text', { x: 12, y: 44, class: 'node-sub' }, subtitle),
    );
  };
  /** Past traffic, read from the agents' logs: once per visit (new calls arrive on the event stream). */
  const loadSwarm = async () => {
    try {
      const swarm = await ctx.api.get('/v1/swarm');
      connections = objects(swarm, 'connections').map((c) => ({ name: str(c, 'name'), connector: str(c, 'connector'), agents: Array.isArray(c.agents) ? c.agents.filter((a) => typeof a === 'string') : [] }));
      for (const call of objects(swarm, 'calls')) {
        const key = `${str(call, 'from')}→${str(call, 'to')}`;
        const known = edges.get(key);
        const count = num(call, 'count') ?? 1;
        // The daemon's count covers history; live events may have counted past it meanwhile.
        if (!known || known.count < count) edges.set(key, { from: str(call, 'from'), to: str(call, 'to'), count, lastAt: str(call, 'lastAt') });
      }
      error.clear();
    } catch (e) {
      error.show(e);
    }
    if (visible) render();
  };
  const refresh = poller(async () => {
    try {
      processes = objects(await ctx.api.get('/v1/processes'), 'processes');
      error.clear();
    } catch (e) {
      error.show(e);
    }
    if (visible) render();
  }, REFRESH_MS);
  const soon = debounce(() => visible && render(), 100);
  const refreshSoon = debounce(() => refresh.now(), 300);
  let visible = false;
  // A resumed turn reports its calls again: each counts once (as /v1/swarm counts them).
  const counted = new Set<string>();
  ctx.live.subscribe((event) => {
    if (event.type === 'step.delta') return;
    const call = agentCallOf(event);
    const id = callIdOf(event);
    if (call && id !== undefined && !counted.has(id)) {
      counted.add(id);
      addCall(edges, call, event.timestamp);
      soon();
    }
    if (event.type.startsWith('turn.') && visible) refreshSoon();
  });
  return {
    element,
    show() {
      visible = true;
      render();
      void loadSwarm();
      refresh.start();
    },
    hide() {
      visible = false;
      refresh.stop();
    },
  };
}

function position(p: NodePlace): { x: number; y: number } {
  return { x: PAD + p.column * COL_GAP, y: PAD + p.row * ROW_GAP };
}

/** A left-to-right curve between two nodes; a call back to an earlier column loops below them. */
function edge(from: NodePlace | undefined, to: NodePlace | undefined, cls: string, label: string): SVGElement {
  if (!from || !to) return svg('g');
  const a = position(from);
  const b = position(to);
  let d: string;
  let lx: number;
  let ly: number;
  if (to.column > from.column) {
    const x1 = a.x + NODE_W;
    const y1 = a.y + NODE_H / 2;
    const x2 = b.x;
    const y2 = b.y + NODE_H / 2;
    const mid = (x1 + x2) / 2;
    d = `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
    lx = mid;
    ly = (y1 + y2) / 2 - 6;
  } else {
    const x1 = a.x + NODE_W / 2;
    const y1 = a.y + NODE_H;
    const x2 = b.x + NODE_W / 2 + (from === to ? 30 : 0);
    const y2 = b.y + NODE_H;
    const dip = Math.max(y1, y2) + 34;
    d = `M${x1},${y1} C${x1},${dip} ${x2},${dip} ${x2},${y2}`;
    lx = (x1 + x2) / 2;
    ly = dip - 4;
  }
  return svg('g', { class: cls }, svg('path', { d, 'marker-end': 'url(#arrow)' }), label ? svg('text', { x: lx, y: ly, 'text-anchor': 'middle', class: 'link-label' }, label) : null);
}
