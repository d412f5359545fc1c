/**
 * Conversation: pick an instance (agent @ instanceKey), read its history — inputs, replies, tool
 * calls with arguments and results, messages between agents — and send it a message. A reply
 * streams into its bubble chunk by chunk when the daemon sends `step.delta` events, and is
 * replaced by the stored history when the turn completes.
 */
import { ApiError, describeError } from '../api-client.ts';
import { errorLine } from '../error-line.ts';
import { fill, h } from '../dom.ts';
import { formatTime, prettyJson } from '../format.ts';
import { isObject, objects, str } from '../json-fields.ts';
import { type ConversationItem, conversationItems } from '../model/conversation-items.ts';
import { ReplyStream } from '../model/reply-stream.ts';
import { debounce } from '../schedule.ts';
import type { StudioContext, View } from '../view.ts';

/** What the composer asks the daemon to wait for before it gives up on a reply. */
const REPLY_TIMEOUT_MS = 600_000;
const OPEN_JSON_CHARS = 600;

interface Target {
  agent: string;
  instanceKey: string;
}

export function conversationView(ctx: StudioContext): View {
  const picker = h('select', { id: 'instance-picker' });
  const history = h('ol', { class: 'messages', 'aria-label': 'Conversation history' });
  const textarea = h('textarea', { id: 'composer', rows: 3, placeholder: 'Write to the agent. Enter sends, Shift+Enter starts a new line.' });
  const sendButton = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const error = errorLine();
  const form = h('form', { class: 'composer' }, h('label', { for: 'composer' }, 'Message'), textarea, sendButton);
  const element = h(
    'section',
    { 'aria-labelledby': 'conversation-title', class: 'conversation' },
    h('h2', { id: 'conversation-title' }, 'Conversation'),
    h(
      'div',
      { class: 'toolbar' },
      h('label', { for: 'instance-picker' }, 'Instance'),
      picker,
      h('button', { type: 'button', onclick: () => newConversation() }, 'New conversation'),
    ),
    error.element,
    history,
    form,
  );
  let target: Target = { agent: ctx.swarm.entryAgent, instanceKey: 'default' };
  let known: Target[] = [];
  let visible = false;
  /** Replies streaming in, by traceId: the composer's own and any other turn of this instance. */
  const streams = new Map<string, { stream: ReplyStream; bubble: HTMLElement }>();
  let sending = false;
  /** The traceId of the composer's turn in flight ('' when none). */
  let composing = '';

  const keyOf = (t: Target) => `${encodeURIComponent(t.agent)}/${encodeURIComponent(t.instanceKey)}`;
  const renderPicker = () => {
    const all = [...known];
    if (!all.some((t) => keyOf(t) === keyOf(target))) all.unshift(target);
    fill(picker, ...all.map((t) => h('option', { value: keyOf(t) }, `${t.agent} @ ${t.instanceKey}`)));
    picker.value = keyOf(target);
  };
  const loadInstances = async () => {
    try {
      const instances = objects(await ctx.api.get('/v1/instances'), 'instances');
      known = instances.flatMap((i) => objects(i, 'agents').map((a) => ({ agent: str(a, 'agent'), instanceKey: str(i, 'instanceKey') })));
    } catch (e) {
      error.show(e);
    }
    renderPicker();
  };
  const fetchItems = async (of: Target): Promise<ConversationItem[]> => {
    // A conversation that never ran has no state to fetch yet (the daemon would answer 404).
    if (!known.some((t) => keyOf(t) === keyOf(of))) return [];
    try {
      const body = await ctx.api.get(`/v1/instances/${encodeURIComponent(of.instanceKey)}/messages?agent=${encodeURIComponent(of.agent)}`);
      error.clear();
      return conversationItems(objects(body, 'messages'));
    } catch (e) {
      // Deleted meanwhile: an empty history, not an error.
      if (!(e instanceof ApiError && e.status === 404)) error.show(e);
      return [];
    }
  };
  const loadHistory = async () => {
    const shown = keyOf(target);
    const items = await fetchItems(target);
    if (shown !== keyOf(target)) return;
    fill(history, ...(items.length === 0 ? [h('li', { class: 'empty' }, 'No messages yet. Write one below.')] : items.map((item) => renderItem(item, target.agent))), ...[...streams.values()].map((s) => s.bubble));
    history.scrollTop = history.scrollHeight;
  };
  const refresh = async () => {
    await loadInstances();
    await loadHistory();
  };
  const select = (next: Target) => {
    target = next;
    streams.clear();
    renderPicker();
    return refresh();
  };
  const newConversation = () => {
    const key = `studio-${Math.random().toString(36).slice(2, 8)}`;
    ctx.navigate('conversation', target.agent, key);
  };
  picker.addEventListener('change', () => {
    const [agent = '', key = ''] = picker.value.split('/').map(decodeURIComponent);
    ctx.navigate('conversation', agent, key);
  });

  const bubbleFor = (traceId: string) => {
    const existing = streams.get(traceId);
    if (existing) return existing;
    const bubble = h('li', { class: 'msg msg-reply streaming', 'aria-busy': 'true', 'data-trace': traceId }, h('span', { class: 'who' }, target.agent), h('p', { class: 'text' }, '…'));
    const entry = { stream: new ReplyStream(traceId, target.agent, target.instanceKey), bubble };
    streams.set(traceId, entry);
    history.querySelector('.empty')?.remove();
    history.append(bubble);
    return entry;
  };
  const send = async () => {
    const text = textarea.value.trim();
    if (text === '' || sending) return;
    sending = true;
    sendButton.disabled = true;
    textarea.value = '';
    const traceId = randomTraceId();
    composing = traceId;
    history.querySelector('.empty')?.remove();
    history.append(h('li', { class: 'msg msg-input pending' }, h('span', { class: 'who' }, 'You'), h('p', { class: 'text' }, text)));
    const { stream, bubble } = bubbleFor(traceId);
    history.scrollTop = history.scrollHeight;
    const to = target;
    try {
      const reply = await ctx.api.call('POST', '/v1/events', { input: text, agent: to.agent, instanceKey: to.instanceKey, traceId, timeoutMs: REPLY_TIMEOUT_MS });
      const output = isObject(reply) ? str(reply, 'output') : '';
      const failed = isObject(reply) && reply.status !== 'ok';
      fill(bubble, h('span', { class: 'who' }, to.agent), h('p', { class: 'text' }, failed ? `Turn ${String(reply.status)}: ${output || prettyJson(reply.error)}` : output));
      ctx.announce(failed ? `${to.agent}'s turn failed` : `${to.agent} replied`);
    } catch (e) {
      fill(bubble, h('span', { class: 'who' }, to.agent), h('p', { class: 'text error' }, describeError(e)));
    } finally {
      // How many chunks the last reply streamed in (0 when the daemon does not stream).
      history.dataset.lastReplyChunks = String(stream.chunkCount);
      streams.delete(traceId);
      composing = '';
      sending = false;
      sendButton.disabled = false;
      if (keyOf(to) === keyOf(target)) await refresh();
      textarea.focus();
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send();
  });
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send();
    }
  });

  const reload = debounce(() => void refresh(), 150);
  ctx.live.subscribe((event) => {
    if (!visible || event.agentName !== target.agent || event.instanceKey !== target.instanceKey) return;
    if (event.type === 'step.delta') {
      const { stream, bubble } = bubbleFor(event.traceId);
      if (!stream.accept(event)) return;
      bubble.querySelector('.text')?.replaceChildren(stream.text);
      bubble.dataset.chunks = String(stream.chunkCount);
      history.scrollTop = history.scrollHeight;
      return;
    }
    // Turns from elsewhere (a connector, another agent): show them once they are stored. The
    // composer's own turn is shown when its reply arrives.
    if ((event.type === 'turn.completed' || event.type === 'turn.failed') && event.traceId !== composing) {
      streams.get(event.traceId)?.bubble.remove();
      streams.delete(event.traceId);
      if (!sending) reload();
    }
  });
  return {
    element,
    show(params) {
      visible = true;
      const [agent, instanceKey] = params;
      void select(agent && instanceKey ? { agent, instanceKey } : target);
    },
    hide() {
      visible = false;
    },
  };
}

function renderItem(item: ConversationItem, agent: string): HTMLElement {
  switch (item.kind) {
    case 'system':
      return h('li', { class: 'msg msg-system' }, h('details', {}, h('summary', {}, 'System prompt'), h('pre', {}, item.text)));
    case 'input':
      return h(
        'li',
        { class: `msg msg-input${item.eventType?.startsWith('agent.') ? ' msg-agent' : ''}` },
        h('span', { class: 'who' }, inputLabel(item.eventType), ' · ', formatTime(item.at), item.traceId ? h('a', { href: `#trace/${item.traceId}`, class: 'trace-link' }, 'trace') : null),
        h('p', { class: 'text' }, item.text),
      );
    case 'reply':
      return h('li', { class: 'msg msg-reply' }, h('span', { class: 'who' }, agent, ' · ', formatTime(item.at)), h('p', { class: 'text' }, item.text));
    case 'tool-call':
      return jsonItem('msg-tool-call', `Tool call ${item.toolName}${item.target ? ` → ${item.target}` : ''}`, item.args);
    case 'tool-result':
      return jsonItem(`msg-tool-result${item.isError ? ' is-error' : ''}`, `${item.isError ? 'Error from' : 'Result of'} ${item.toolName}`, item.output);
    case 'other':
      return jsonItem('msg-other', `${item.role} message`, item.value);
  }
}

function jsonItem(cls: string, summary: string, value: unknown): HTMLElement {
  const text = prettyJson(value);
  return h('li', { class: `msg ${cls}` }, h('details', { open: text.length <= OPEN_JSON_CHARS }, h('summary', {}, summary), h('pre', {}, text)));
}

function inputLabel(eventType: string | undefined): string {
  if (eventType === undefined || eventType === 'api.input') return 'User';
  if (eventType === 'agent.request') return 'Request from another agent';
  if (eventType === 'agent.send') return 'Message from another agent';
  return `Input (${eventType})`;
}

/** The composer picks the trace id, so it can tell its own reply's chunks from any other turn's. */
function randomTraceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
