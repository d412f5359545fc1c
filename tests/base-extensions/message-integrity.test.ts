/**
 * The shared removal rules of message-window and message-compaction (message-integrity.ts): tool
 * calls and their results form one unit, results pair with the nearest earlier call of their id,
 * orphans go unless pinned, kept units are skipped, removal stops when `enough` says so.
 */
import { describe, expect, test } from 'bun:test';
import { isProtected, messageUnits, selectRemovals } from '../../bundles/base/extensions/message-integrity.ts';
import { assistantCalls, assistantText, systemPrompt, toolResult, userMessage } from './helpers/message-builders.ts';

describe('messageUnits', () => {
  test('an assistant message with calls owns the tool messages answering it, even when something sits between', () => {
    const messages = [userMessage('u'), assistantCalls(['a', 'b']), toolResult('a'), userMessage('injected'), toolResult('b'), assistantText('done')];
    expect(messageUnits(messages)).toEqual([
      { indices: [0], orphan: false },
      { indices: [1, 2, 4], orphan: false },
      { indices: [3], orphan: false },
      { indices: [5], orphan: false },
    ]);
  });

  test('a reused call id pairs with the nearest earlier call; a result without a call is an orphan', () => {
    const messages = [assistantCalls(['call_1']), toolResult('call_1'), assistantCalls(['call_1']), toolResult('call_1'), toolResult('call_7')];
    expect(messageUnits(messages)).toEqual([
      { indices: [0, 1], orphan: false },
      { indices: [2, 3], orphan: false },
      { indices: [4], orphan: true },
    ]);
  });
});

describe('selectRemovals', () => {
  test('takes whole units oldest first, skips kept units, stops when enough', () => {
    const messages = [systemPrompt('s'), assistantCalls(['c']), toolResult('c'), userMessage('u1'), assistantText('a1'), userMessage('now', { eventId: 'e1' })];
    const removed = selectRemovals(messages, {
      keep: (m) => isProtected(m, 'e1'),
      enough: (selected) => messages.length - selected.size <= 3,
    });
    expect([...removed]).toEqual(messages.slice(1, 4).map((m) => m.id));
  });

  test('orphans go even when enough already holds; a pinned orphan stays', () => {
    const pinnedOrphan = { ...toolResult('x'), metadata: { pinned: true } };
    const orphan = toolResult('y');
    const messages = [userMessage('u'), orphan, pinnedOrphan];
    const removed = selectRemovals(messages, { keep: () => false, enough: () => true });
    expect([...removed]).toEqual([orphan.id]);
  });

  test('enough is told how many units (orphans not counted) were taken', () => {
    const messages = [toolResult('orphan'), userMessage('u1'), userMessage('u2'), userMessage('u3')];
    const calls: number[] = [];
    selectRemovals(messages, {
      keep: () => false,
      enough: (_selected, taken) => {
        calls.push(taken);
        return taken === 2;
      },
    });
    expect(calls).toEqual([0, 1, 2]);
  });
});

describe('isProtected', () => {
  test('pinned, the context-message system prompt and the current input are protected; an old input is not', () => {
    expect(isProtected({ ...assistantText('x'), metadata: { pinned: true } }, 'e1')).toBe(true);
    expect(isProtected(systemPrompt('s'), 'e1')).toBe(true);
    expect(isProtected(userMessage('now', { eventId: 'e1' }), 'e1')).toBe(true);
    expect(isProtected(userMessage('before', { eventId: 'e0' }), 'e1')).toBe(false);
    expect(isProtected({ ...userMessage('plain system'), data: { role: 'system', content: 'other' } }, 'e1')).toBe(false);
  });
});
