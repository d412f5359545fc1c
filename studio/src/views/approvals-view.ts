/**
 * Approvals: tool calls the permission policy holds for a human (`ask`), with what the call does
 * in words (the export's summary, display name and icon), the tool's own preview (a diff, the
 * commands of a line), its arguments and the rule that asked; Approve (once), Approve for session, or Deny. Polled, and
 * refreshed at once when a tool call starts (that is when a policy asks). The count also shows in
 * the navigation, whichever view is open.
 */
import { describeError } from '../api-client.ts';
import { errorLine } from '../error-line.ts';
import { fill, h } from '../dom.ts';
import { formatTime, prettyJson } from '../format.ts';
import { type Json, objects, str } from '../json-fields.ts';
import { debounce, poller } from '../schedule.ts';
import type { StudioContext, View } from '../view.ts';

const REFRESH_MS = 2_000;

export function approvalsView(ctx: StudioContext, onCount: (count: number) => void): View {
  const list = h('ul', { class: 'approvals', 'aria-label': 'Pending approvals' });
  const error = errorLine();
  const element = h(
    'section',
    { 'aria-labelledby': 'approvals-title' },
    h('h2', { id: 'approvals-title' }, 'Approvals'),
    h('p', { class: 'hint' }, 'Tool calls waiting for a human. Decisions go to the daemon only when it runs with GOONDAN_APPROVALS=http or an interactive terminal.'),
    error.element,
    list,
  );
  const decided = new Set<string>();

  const render = (approvals: Json[]) => {
    const pending = approvals.filter((a) => !decided.has(str(a, 'id')));
    onCount(pending.length);
    if (pending.length === 0) return fill(list, h('li', { class: 'empty' }, 'No tool calls are waiting for approval.'));
    fill(list, ...pending.map(item));
  };
  const item = (a: Json) => {
    const id = str(a, 'id');
    const titleId = `approval-${id}`;
    const decide = (decision: 'approve' | 'deny', scope: 'once' | 'session', done: string) => async () => {
      decided.add(id);
      try {
        await ctx.api.call('POST', `/v1/approvals/${encodeURIComponent(id)}`, { decision, scope });
        ctx.announce(`${done}: ${str(a, 'toolName')} for ${str(a, 'agent')} @ ${str(a, 'instanceKey')}`);
      } catch (e) {
        ctx.announce(`Failed: ${describeError(e)}`);
      }
      refresh.now();
    };
    return h(
      'li',
      { class: 'approval', 'aria-labelledby': titleId, 'data-approval': id },
      h('h3', { id: titleId }, str(a, 'summary') || h('code', {}, str(a, 'toolName')), ` for ${str(a, 'agent')} @ ${str(a, 'instanceKey')}`),
      h('p', { class: 'tool' }, [str(a, 'icon'), str(a, 'displayName')].filter(Boolean).join(' '), ' ', h('code', {}, str(a, 'toolName'))),
      h('p', { class: 'reason' }, 'Rule: ', str(a, 'reason') || '–'),
      ...(str(a, 'preview') ? [h('details', { open: true }, h('summary', {}, 'Preview'), h('pre', { class: 'preview' }, str(a, 'preview')))] : []),
      h('details', { open: true }, h('summary', {}, 'Arguments'), h('pre', {}, prettyJson(a.args))),
      h('p', { class: 'meta' }, `Asked ${formatTime(str(a, 'createdAt'))}; denied automatically at ${formatTime(str(a, 'expiresAt'))}.`),
      h(
        'div',
        { class: 'buttons', role: 'group', 'aria-labelledby': titleId },
        h('button', { type: 'button', class: 'primary', onclick: decide('approve', 'once', 'Approved') }, 'Approve'),
        h('button', { type: 'button', onclick: decide('approve', 'session', 'Approved for the session') }, 'Approve for session'),
        h('button', { type: 'button', class: 'danger', onclick: decide('deny', 'once', 'Denied') }, 'Deny'),
      ),
    );
  };
  const refresh = poller(async () => {
    try {
      const approvals = objects(await ctx.api.get('/v1/approvals'), 'approvals');
      // Forget decisions once the daemon no longer lists them.
      for (const id of decided) if (!approvals.some((a) => str(a, 'id') === id)) decided.delete(id);
      render(approvals);
      error.clear();
    } catch (e) {
      error.show(e);
    }
  }, REFRESH_MS);
  const soon = debounce(() => refresh.now(), 100);
  ctx.live.subscribe((event) => {
    if (event.type === 'tool.called' || event.type === 'tool.completed' || event.type === 'tool.failed') soon();
  });
  // The count in the navigation stays current on every view.
  refresh.start();
  return { element, show: () => refresh.now(), hide: () => {} };
}
