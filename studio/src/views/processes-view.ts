/**
 * Processes: the daemon's process table (agent, instance, pid, status, crashes, restarts, RSS,
 * model tokens and cost, last error), refreshed while shown and on every turn event, with Restart and Delete for agent
 * instances.
 */
import { describeError } from '../api-client.ts';
import { errorLine } from '../error-line.ts';
import { fill, h } from '../dom.ts';
import { formatBytes, formatTime } from '../format.ts';
import { type Json, num, obj, objects, str } from '../json-fields.ts';
import { debounce, poller } from '../schedule.ts';
import type { StudioContext, View } from '../view.ts';

const REFRESH_MS = 2_000;

export function processesView(ctx: StudioContext): View {
  const body = h('tbody');
  const error = errorLine();
  const element = h(
    'section',
    { 'aria-labelledby': 'processes-title' },
    h('h2', { id: 'processes-title' }, 'Processes'),
    error.element,
    h(
      'div',
      { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Process table' },
      h(
        'table',
        {},
        h('thead', {}, h('tr', {}, ...['Agent', 'Instance', 'PID', 'Status', 'Crashes', 'Restarts', 'RSS', 'Tokens', 'Cost', 'Started', 'Last error', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))),
        body,
      ),
    ),
  );

  const render = (rows: Json[]) => {
    if (rows.length === 0) return fill(body, h('tr', {}, h('td', { colspan: 12, class: 'empty' }, 'No processes yet: agents start on their first message.')));
    fill(body, ...rows.map(row));
  };
  const row = (p: Json) => {
    const kind = str(p, 'kind');
    const agent = str(p, 'agent');
    const instanceKey = str(p, 'instanceKey');
    const name = kind === 'agent' ? agent : kind === 'pool' ? '(warm)' : `connection/${str(p, 'connection')}`;
    const lastError = obj(p, 'lastError');
    const crashes = num(p, 'crashes') ?? 0;
    const status = str(p, 'status');
    const usage = obj(p, 'usage');
    return h(
      'tr',
      { class: crashes > 0 || lastError ? 'row-warn' : '', 'data-agent': agent, 'data-instance': instanceKey },
      h('th', { scope: 'row' }, name),
      h('td', {}, instanceKey || '–'),
      h('td', { class: 'num' }, num(p, 'pid') ?? '–'),
      h('td', {}, h('span', { class: `status status-${status}` }, status)),
      h('td', { class: 'num' }, crashes),
      h('td', { class: 'num' }, num(p, 'restarts') ?? 0),
      h('td', { class: 'num' }, formatBytes(num(p, 'rss'))),
      h('td', { class: 'num' }, usage ? (num(usage, 'tokens') ?? 0) : '–'),
      h('td', { class: 'num' }, formatCost(usage)),
      h('td', {}, formatTime(str(p, 'startedAt'))),
      h('td', { class: 'last-error' }, lastError ? `${str(lastError, 'code')}: ${str(lastError, 'message')} (${formatTime(str(lastError, 'at'))})` : '–'),
      h('td', { class: 'actions' }, kind === 'agent' ? actions(agent, instanceKey) : null),
    );
  };
  /** Cost of the instance's model calls (Model.spec.pricing), per currency. */
  const formatCost = (usage: Json | undefined) => {
    const cost = usage ? obj(usage, 'cost') : undefined;
    const parts = cost ? Object.entries(cost).flatMap(([currency, amount]) => (typeof amount === 'number' ? [`${Number(amount.toPrecision(6))} ${currency}`] : [])) : [];
    return parts.length > 0 ? parts.join(' + ') : '–';
  };
  const actions = (agent: string, instanceKey: string) => {
    const label = `${agent} @ ${instanceKey}`;
    return h(
      'span',
      { class: 'buttons' },
      h('button', { type: 'button', title: `Restart ${label}`, onclick: () => void act(`Restarted ${label}`, 'POST', `/v1/instances/${encodeURIComponent(instanceKey)}/restart?agent=${encodeURIComponent(agent)}`) }, 'Restart'),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          title: `Delete instance ${instanceKey}`,
          onclick: () => {
            if (window.confirm(`Delete instance '${instanceKey}'? This stops its processes and deletes the state (conversations) of every agent under this key.`)) {
              void act(`Deleted instance ${instanceKey}`, 'DELETE', `/v1/instances/${encodeURIComponent(instanceKey)}`);
            }
          },
        },
        'Delete',
      ),
    );
  };
  const act = async (done: string, method: 'POST' | 'DELETE', path: string) => {
    try {
      await ctx.api.call(method, path);
      ctx.announce(done);
    } catch (e) {
      ctx.announce(`Failed: ${describeError(e)}`);
    }
    refresh.now();
  };
  const refresh = poller(async () => {
    try {
      render(objects(await ctx.api.get('/v1/processes'), 'processes'));
      error.clear();
    } catch (e) {
      error.show(e);
    }
  }, REFRESH_MS);
  const soon = debounce(() => refresh.now(), 200);
  let visible = false;
  ctx.live.subscribe((event) => {
    if (visible && event.type.startsWith('turn.')) soon();
  });
  return {
    element,
    show() {
      visible = true;
      refresh.start();
    },
    hide() {
      visible = false;
      refresh.stop();
    },
  };
}
