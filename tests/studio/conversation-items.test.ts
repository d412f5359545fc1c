import { describe, expect, test } from 'bun:test';
import { conversationItems } from '../../studio/src/model/conversation-items.ts';

const message = (id: string, data: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ id, data, metadata, createdAt: '2026-01-01T00:00:00.000Z', source: { type: 'user' } });

describe('the conversation view: stored messages as what it shows', () => {
  test('inputs, replies, tool calls with their arguments and tool results, in order', () => {
    const items = conversationItems([
      message('m0', { role: 'system', content: 'You are a poet.' }),
      message('m1', { role: 'user', content: 'a haiku please' }, { eventType: 'api.input', traceId: 'abc' }),
      message('m2', { role: 'assistant', content: [{ type: 'text', text: 'Asking.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'agents__request', input: { target: 'reviewer', input: 'review' } }] }),
      message('m3', { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'agents__request', output: { type: 'json', value: { response: 'fine' } } }] }),
      message('m4', { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }),
    ]);
    expect(items.map((i) => i.kind)).toEqual(['system', 'input', 'reply', 'tool-call', 'tool-result', 'reply']);
    expect(items[1]).toMatchObject({ kind: 'input', text: 'a haiku please', eventType: 'api.input', traceId: 'abc' });
    expect(items[3]).toMatchObject({ kind: 'tool-call', toolName: 'agents__request', args: { target: 'reviewer', input: 'review' }, target: 'reviewer' });
    expect(items[4]).toMatchObject({ kind: 'tool-result', toolName: 'agents__request', output: { response: 'fine' }, isError: false });
  });

  test('a message from another agent keeps its event type', () => {
    const [item] = conversationItems([message('m1', { role: 'user', content: 'review this' }, { eventType: 'agent.request' })]);
    expect(item).toMatchObject({ kind: 'input', eventType: 'agent.request' });
  });

  test('error results are marked: an error output type, or a goondan error ToolResult', () => {
    const items = conversationItems([
      message('m1', { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'bash__exec', output: { type: 'error-text', value: 'denied' } }] }),
      message('m2', { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'bash__exec', output: { type: 'json', value: { status: 'error', error: { code: 'E_TOOL_DENIED' } } } }] }),
    ]);
    expect(items.map((i) => i.kind === 'tool-result' && i.isError)).toEqual([true, true]);
  });

  test('what the view does not know is shown as JSON, never dropped', () => {
    const [item] = conversationItems([message('m1', { role: 'developer', content: 'x' })]);
    expect(item).toMatchObject({ kind: 'other', role: 'developer' });
  });
});
