/**
 * The prompt handed to the model is converted incrementally (issue 12): each conversation message
 * once, the previous call's prompt re-used up to the first changed message, consecutive tool
 * messages merged (as the AI SDK does), and a malformed message reported as E_MODEL_PROMPT naming it.
 */
import { describe, expect, test } from 'bun:test';
import type { ModelMessage } from 'ai';
import { PromptConverter } from '../../agent-process/models/prompt-converter.ts';
import { GoondanError } from '../../shared/errors/index.ts';

const system: ModelMessage = { role: 'system', content: 'Be brief.' };
const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const toolResult = (id: string, value: string): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'echo__say', output: { type: 'json', value } }],
});
/** One step's two tool calls (their results arrive as two tool messages). */
const calls: ModelMessage = {
  role: 'assistant',
  content: [
    { type: 'tool-call', toolCallId: 'c1', toolName: 'echo__say', input: { text: 'x' } },
    { type: 'tool-call', toolCallId: 'c2', toolName: 'echo__say', input: { text: 'y' } },
  ],
};

describe('incremental conversion', () => {
  test('messages become the model prompt: system text, user and assistant text parts', () => {
    const prompt = new PromptConverter().convert([system, user('hi'), assistant('hello')]);
    expect(prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
  });

  test('a longer history re-uses the converted prefix (the same objects) and converts only the new messages', () => {
    const converter = new PromptConverter();
    const history = [system, user('one'), assistant('two')];
    const first = converter.convert(history);
    const second = converter.convert([...history, user('three')]);
    expect(second).toHaveLength(4);
    for (let i = 0; i < 3; i++) expect(second[i]).toBe(first[i]);
    expect(second[3]).toEqual({ role: 'user', content: [{ type: 'text', text: 'three' }] });
  });

  test('a replaced or removed earlier message changes the prompt from there on (window, compaction)', () => {
    const converter = new PromptConverter();
    converter.convert([system, user('old'), assistant('a'), user('b')]);
    const replaced = converter.convert([system, user('summary'), assistant('a'), user('b')]);
    expect(replaced[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'summary' }] });
    const truncated = converter.convert([system, user('b')]);
    expect(truncated).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'b' }] },
    ]);
  });

  test('consecutive tool messages are one message, also when the second arrives in a later call', () => {
    const converter = new PromptConverter();
    const once = converter.convert([user('go'), calls, toolResult('c1', 'x')]);
    expect(once).toHaveLength(3);
    const both = converter.convert([user('go'), calls, toolResult('c1', 'x'), toolResult('c2', 'y')]);
    expect(both).toHaveLength(3);
    expect(both[2]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'c1' }, { toolCallId: 'c2' }] });
    // The cached prompt was not changed by the merge: the one-result prompt is still one result.
    expect(once[2]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'c1' }] });
  });

  test('with a revision (a conversation that only appended since) only the new messages are read, not the history', () => {
    const converter = new PromptConverter();
    const history: ModelMessage[] = [system];
    for (let i = 0; i < 500; i++) history.push(user(`u${i}`), assistant(`a${i}`));
    converter.convert(history, 7);
    history.push(user('new'));
    let reads = 0;
    const counted = new Proxy(history, {
      get: (target, key, receiver) => {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const prompt = converter.convert(counted, 7);
    expect(prompt).toHaveLength(1002);
    expect(prompt[1001]).toEqual({ role: 'user', content: [{ type: 'text', text: 'new' }] });
    expect(reads).toBeLessThan(5);
    // An edit comes in a new array with a new revision: the replaced message is seen.
    const edited = [...history];
    edited[1] = user('summary');
    expect(converter.convert(edited, 8)[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'summary' }] });
  });

  test('a revision that continues a tool run merges the new result into it', () => {
    const converter = new PromptConverter();
    const live: ModelMessage[] = [user('go'), calls, toolResult('c1', 'x')];
    expect(converter.convert(live, 1)).toHaveLength(3);
    live.push(toolResult('c2', 'y'));
    const both = converter.convert(live, 1);
    expect(both).toHaveLength(3);
    expect(both[2]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'c1' }, { toolCallId: 'c2' }] });
  });

  test('as a conversation edits itself at random (appends and logged replacements in place; replacements, removals, truncation in a new array), each prompt is what a fresh conversion gives', () => {
    let seed = 12;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const makers = [
      (i: number) => user(`u${i}`),
      (i: number) => assistant(`a${i}`),
      () => calls,
      (i: number) => toolResult(i % 2 ? 'c1' : 'c2', `r${i}`),
      (i: number): ModelMessage => ({ role: 'system', content: `prompt ${i}` }),
    ];
    const converter = new PromptConverter();
    let live: ModelMessage[] = [system];
    let revision = 1;
    let patched: number[] = [];
    for (let step = 0; step < 3000; step++) {
      const op = random(12);
      const message = makers[random(makers.length)]?.(step) ?? user('x');
      if (op < 6 || live.length === 0) live.push(message);
      else if (op < 9) {
        // Replaced in place, as Conversation does: the log says where; several may come between calls.
        for (let n = random(3) + 1; n > 0; n--) {
          const at = random(live.length);
          live[at] = makers[random(makers.length)]?.(step + n) ?? user('y');
          patched.push(at);
        }
      } else {
        live = [...live];
        revision++;
        patched = [];
        if (op < 10) live[random(live.length)] = message;
        else if (random(20) > 0) live.splice(random(live.length), 1);
        else live = [];
      }
      // Some edits land between calls without a call: the next call must take them all in.
      if (random(4) === 0) continue;
      expect(converter.convert(live, revision, patched)).toEqual(new PromptConverter().convert(live));
    }
  });

  test('a first message replaced in a long history is patched where it stands; the rest of the prompt is the previous call’s', () => {
    const converter = new PromptConverter();
    const history: ModelMessage[] = [system];
    for (let i = 0; i < 300; i++) history.push(user(`u${i}`), calls, toolResult('c1', `r${i}`), toolResult('c2', `s${i}`), assistant(`a${i}`));
    const before = converter.convert(history, 1);
    const edited = [{ role: 'system', content: 'Be briefer.' } satisfies ModelMessage, ...history.slice(1)];
    const after = converter.convert(edited, 2);
    expect(after[0]).toEqual({ role: 'system', content: 'Be briefer.' });
    expect(after).toHaveLength(before.length);
    for (let i = 1; i < after.length; i++) expect(after[i]).toBe(before[i]);
    expect(after).toEqual(new PromptConverter().convert(edited));
  });

  test('callers get their own array: changing it does not change the next prompt', () => {
    const converter = new PromptConverter();
    const history = [system, user('hi')];
    converter.convert(history).push({ role: 'user', content: [{ type: 'text', text: 'injected' }] });
    expect(converter.convert(history)).toHaveLength(2);
  });
});

describe('malformed messages (extensions may append anything)', () => {
  test('a call that failed part-way leaves the converter usable: the next call’s prompt is whole and right', () => {
    const broken = { role: 'user', content: [{ type: 'hologram', data: 'x' }] } as unknown as ModelMessage;
    const converter = new PromptConverter();
    const history = [system, user('a'), assistant('b')];
    converter.convert(history);
    // An edit at message 1, then the malformed message: the call ends after converting message 1 again.
    expect(() => converter.convert([system, user('A'), broken])).toThrow('conversation message 2 (user)');
    expect(converter.convert([...history, user('c')])).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
      { role: 'user', content: [{ type: 'text', text: 'c' }] },
    ]);
  });

  test('an unknown part is E_MODEL_PROMPT naming the message index and role', () => {
    // Deliberately outside the type: what a buggy extension could append at run time.
    const broken = { role: 'user', content: [{ type: 'hologram', data: 'x' }] } as unknown as ModelMessage;
    let caught: unknown;
    try {
      new PromptConverter().convert([system, user('hi'), broken]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GoondanError);
    expect(caught).toMatchObject({ code: 'E_MODEL_PROMPT', message: expect.stringContaining('conversation message 2 (user)') });
  });
});
