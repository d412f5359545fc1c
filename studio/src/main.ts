/**
 * The studio page: signs in (login code or token), then shows one view at a time, chosen by the
 * URL fragment (`#swarm`, `#processes`, `#conversation/<agent>/<instanceKey>`, `#trace/<traceId>`,
 * `#approvals`, `#metrics`), all fed by one event stream.
 */
import { apiClient, describeError } from './api-client.ts';
import { fill, h } from './dom.ts';
import { isObject, str } from './json-fields.ts';
import { LiveEvents } from './live-events.ts';
import { loginForm, redeemCodeFromUrl } from './login.ts';
import { type StudioContext, type SwarmInfo, VIEW_IDS, type View, type ViewId } from './view.ts';
import { approvalsView } from './views/approvals-view.ts';
import { conversationView } from './views/conversation-view.ts';
import { metricsView } from './views/metrics-view.ts';
import { processesView } from './views/processes-view.ts';
import { swarmView } from './views/swarm-view.ts';
import { traceView } from './views/trace-view.ts';

function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page lacks #${id}`);
  return element;
}

const main = byId('main');
const nav = byId('views-nav');
const announcer = byId('announcer');

let signingIn = false;
function showLogin(problem?: string): void {
  if (signingIn) return;
  signingIn = true;
  nav.hidden = true;
  fill(main, loginForm(problem, () => location.reload()));
  byId('api-token').focus();
}

async function boot(): Promise<void> {
  const problem = await redeemCodeFromUrl();
  const api = apiClient(() => showLogin());
  let swarm: SwarmInfo;
  try {
    const body = await api.get('/v1/swarm');
    if (!isObject(body)) throw new Error('unexpected answer from /v1/swarm');
    swarm = { name: str(body, 'name'), entryAgent: str(body, 'entryAgent'), agents: Array.isArray(body.agents) ? body.agents.filter((a) => typeof a === 'string') : [] };
  } catch (e) {
    if (!signingIn) fill(main, h('p', { class: 'error', role: 'alert' }, `Cannot reach the daemon: ${describeError(e)}`));
    if (problem !== undefined) showLoginProblem(problem);
    return;
  }
  byId('swarm-name').textContent = swarm.name;
  document.title = `${swarm.name} · goondan studio`;

  const live = new LiveEvents();
  const liveState = byId('live-state');
  live.onState((state) => {
    liveState.textContent = state === 'live' ? 'live' : state === 'connecting' ? 'connecting…' : 'offline, retrying';
    liveState.className = `live-${state}`;
  });
  const ctx: StudioContext = {
    api,
    live,
    swarm,
    announce: (text) => {
      announcer.textContent = text;
    },
    navigate: (view, ...params) => {
      location.hash = [view, ...params.map(encodeURIComponent)].join('/');
    },
  };
  const approvalsCount = byId('approvals-count');
  const views: Record<ViewId, View> = {
    swarm: swarmView(ctx),
    processes: processesView(ctx),
    conversation: conversationView(ctx),
    trace: traceView(ctx),
    approvals: approvalsView(ctx, (count) => {
      approvalsCount.textContent = count > 0 ? String(count) : '';
    }),
    metrics: metricsView(ctx),
  };
  fill(main, ...VIEW_IDS.map((id) => views[id].element));
  let current: ViewId | undefined;
  const route = () => {
    const [name = '', ...params] = location.hash.replace(/^#/, '').split('/');
    const id: ViewId = VIEW_IDS.find((v) => v === name) ?? 'swarm';
    if (current && current !== id) views[current].hide();
    for (const v of VIEW_IDS) views[v].element.hidden = v !== id;
    for (const link of nav.querySelectorAll('a')) {
      if (link.getAttribute('href') === `#${id}`) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    current = id;
    views[id].show(params.map(decodeURIComponent));
  };
  window.addEventListener('hashchange', route);
  live.connect();
  route();
}

function showLoginProblem(problem: string): void {
  const alert = main.querySelector('.login .error');
  if (alert instanceof HTMLElement) {
    alert.textContent = problem;
    alert.hidden = false;
  }
}

// The fragment names the view: the skip link moves the focus instead of navigating.
document.querySelector('.skip')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

// A login link pasted into this tab changes only the fragment, which reloads nothing by itself.
window.addEventListener('hashchange', () => {
  if (location.hash.startsWith('#code=')) location.reload();
});

void boot();
