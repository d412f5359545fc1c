/**
 * The `mock` provider (docs/mock-model.md): a real LanguageModelV3 driven by the Model's
 * spec.options script — rules on the latest user message, templates, tool-call chains, a readable
 * summary after results, determinism from the prompt alone.
 */
import { describe, expect, test } from 'bun:test';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { EngineError } from '../../agent-process/engine/engine-error.ts';
import { compileMockScript } from '../../agent-process/models/mock/mock-script.ts';
import { createMockLanguageModel } from '../../agent-process/models/mock/mock-language-model.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { echoTool, failTool, makePlan, startEngine, userEvent, trackEngines } from './helpers/engine-fixture.ts';

const harnesses = trackEngines();
async function replyTo(script: JsonObject, input: string, tools = [echoTool(), failTool()]): Promise<string> {
  const h = await startEngine(makePlan({ tools, script }));
  harnesses.push(h);
  const result = await h.engine.runTurn(userEvent(input));
  if (result.finishReason === 'error') throw new Error(result.error?.message);
  return result.responseText;
}
const mock = (options: JsonObject) => createMockLanguageModel({ modelName: 'mock', modelId: 'scripted', agentName: 'poet', options });

describe('rules and defaults', () => {
  test('without a matching rule the default echoes the input verbatim', async () => {
    expect(await replyTo({}, 'Hello, World!')).toBe('Hello, World!');
    expect(await replyTo({ default: 'echo' }, 'same')).toBe('same');
  });

  test('any other default is a reply template', async () => {
    expect(await replyTo({ default: '{{agent}} heard: {{input}}' }, 'hi')).toBe('tester heard: hi');
  });

  test('`match` is a case-insensitive substring; {{match.0}} is the matched text', async () => {
    expect(await replyTo({ rules: [{ match: 'REVIEW', reply: 'Sure: {{input}} ({{match.0}})' }] }, 'please review this')).toBe('Sure: please review this (review)');
  });

  test('`regex` with groups and flags; the first matching rule wins', async () => {
    const script: JsonObject = {
      rules: [
        { regex: '^hi (\\w+)', flags: 'i', reply: 'hello {{match.1}}' },
        { match: 'hi', reply: 'second rule' },
      ],
    };
    expect(await replyTo(script, 'HI Ada, how are you')).toBe('hello Ada');
    expect(await replyTo(script, 'oh hi')).toBe('second rule');
  });

  test('unknown placeholders stay visible', async () => {
    expect(await replyTo({ default: 'x {{nope}} y' }, 'q')).toBe('x {{nope}} y');
  });

  test('{{match.N}} beyond the groups stays visible; a group that did not take part is empty', async () => {
    expect(await replyTo({ rules: [{ regex: '^hi (\\w+)( now)?', reply: '[{{match.1}}] [{{match.2}}] [{{match.7}}]' }] }, 'hi Ada')).toBe('[Ada] [] [{{match.7}}]');
    expect(await replyTo({ rules: [{ match: 'hi', reply: '{{match.0}} {{match.1}}' }] }, 'oh hi')).toBe('hi {{match.1}}');
  });
});

describe('tool calls', () => {
  test('toolCalls run, then `then` replies with {{result.<path>}} of the first result', async () => {
    const script = { rules: [{ regex: '^count (\\d+)$', toolCalls: [{ name: 'echo__json', args: { count: 3, tags: ['{{match.1}}'] } }], then: 'got {{result.received.tags.0}} / {{result.received}}' }] };
    expect(await replyTo(script, 'count 7')).toBe('got 7 / {"count":3,"tags":["7"]}');
  });

  test('template substitution applies inside args; {{result}} joins several results with newlines', async () => {
    const script = { rules: [{ regex: '^say (.*)$', toolCalls: [{ name: 'echo__say', args: { text: '<{{match.1}}>' } }, { name: 'echo__say', args: { text: 'two' } }], then: '{{result}}' }] };
    expect(await replyTo(script, 'say one')).toBe('<one>\ntwo');
  });

  test('a `then` object is a further step; its own `then` ends the chain', async () => {
    const script = {
      rules: [{ match: 'chain', toolCalls: [{ name: 'echo__say', args: { text: 'first' } }], then: { toolCalls: [{ name: 'echo__say', args: { text: 'after {{result}}' } }], then: 'last: {{result}}' } }],
    };
    expect(await replyTo(script, 'chain')).toBe('last: after first');
  });

  test('without `then` the reply is a readable summary of the results, errors included', async () => {
    const script: JsonObject = { rules: [{ match: 'both', toolCalls: [{ name: 'echo__say', args: { text: 'fine' } }, { name: 'fail__throw', args: { message: 'broken' } }] }] };
    expect(await replyTo(script, 'both')).toBe('echo__say returned: fine\nfail__throw failed: E_TOOL: broken');
  });

  test('{{error}} is the error of the first result', async () => {
    const script = { rules: [{ match: 'x', toolCalls: [{ name: 'fail__throw', args: { message: 'nope', code: 'E_QUOTA' } }], then: 'error was [{{error}}]' }] };
    expect(await replyTo(script, 'x')).toBe('error was [E_QUOTA: nope]');
  });

  test('a {{result.<path>}} that is not in a successful result stays visible (a typo); {{error}} is empty', async () => {
    const script = { rules: [{ match: 'x', toolCalls: [{ name: 'echo__json', args: { count: 2 } }], then: '[{{result.wrods}}] [{{result.received.count}}] [{{error}}]' }] };
    expect(await replyTo(script, 'x')).toBe('[{{result.wrods}}] [2] []');
  });

  test('after a failed call {{result.<path>}} is empty, so `{{result.response}}{{error}}` reads as the error', async () => {
    const script = { rules: [{ match: 'x', toolCalls: [{ name: 'fail__throw', args: { message: 'nope', code: 'E_QUOTA' } }], then: 'got: {{result.response}}{{error}}' }] };
    expect(await replyTo(script, 'x')).toBe('got: E_QUOTA: nope');
  });

  test('tool call ids are call_<n>, numbered across the whole conversation', async () => {
    const h = await startEngine(makePlan({ tools: [echoTool()], script: { rules: [{ match: 'say', toolCalls: [{ name: 'echo__say', args: { text: 'a' } }] }] } }));
    harnesses.push(h);
    await h.engine.runTurn(userEvent('say 1'));
    await h.engine.runTurn(userEvent('say 2'));
    const ids = h.runtimeEvents.flatMap((e) => (e.type === 'tool.called' ? [e.toolCallId] : []));
    expect(ids).toEqual(['call_1', 'call_2']);
  });
});

describe('a real LanguageModelV3 (same generateText path as real providers)', () => {
  const tools = { echo__say: tool({ description: 'say', inputSchema: jsonSchema({ type: 'object', properties: { text: { type: 'string' } } }) }) };

  test('deterministic: the same prompt gives the same answer, also from a fresh instance', async () => {
    const options = { rules: [{ match: 'go', toolCalls: [{ name: 'echo__say', args: { text: '{{input}}' } }] }] };
    const messages = [{ role: 'user' as const, content: 'go now' }];
    const a = await generateText({ model: mock(options), messages, tools });
    const b = await generateText({ model: mock(options), messages, tools });
    expect(a.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([['call_1', 'echo__say', { text: 'go now' }]]);
    expect(b.toolCalls.map((c) => [c.toolCallId, c.input])).toEqual(a.toolCalls.map((c) => [c.toolCallId, c.input]));
    expect(a.finishReason).toBe('tool-calls');
  });

  test('the depth comes from the conversation: after a tool result the chain moves on', async () => {
    const options = { rules: [{ match: 'go', toolCalls: [{ name: 'echo__say', args: { text: 'x' } }], then: 'after: {{result}}' }] };
    const result = await generateText({
      model: mock(options),
      tools,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'echo__say', input: { text: 'x' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'echo__say', output: { type: 'text', value: 'x' } }] },
      ],
    });
    expect(result.text).toBe('after: x');
    expect(result.finishReason).toBe('stop');
  });

  test('a system message is accepted and ignored for matching; usage is ceil(chars / 4)', async () => {
    const result = await generateText({
      model: mock({ rules: [{ match: 'secret', reply: 'matched the system prompt?!' }] }),
      allowSystemInMessages: true,
      messages: [
        { role: 'system', content: 'the secret prompt' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(result.text).toBe('hello');
    expect(result.usage.inputTokens).toBe(Math.ceil(('the secret prompt'.length + 'hello'.length) / 4));
    expect(result.usage.outputTokens).toBe(Math.ceil('hello'.length / 4));
  });

  test('{{system}} is the system message text', async () => {
    const result = await generateText({
      model: mock({ default: 'saw [{{system}}]' }),
      allowSystemInMessages: true,
      messages: [
        { role: 'system', content: 'properties.chat_id: 42' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(result.text).toBe('saw [properties.chat_id: 42]');
  });

  test('doStream streams the same answer', async () => {
    const stream = streamText({ model: mock({ default: 'streamed {{input}}' }), messages: [{ role: 'user', content: 'x' }] });
    expect(await stream.text).toBe('streamed x');
  });

  test('latencyMs delays each call', async () => {
    const started = performance.now();
    await generateText({ model: mock({ latencyMs: 60 }), messages: [{ role: 'user', content: 'x' }] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
  });
});

describe('the script is checked when the engine starts (E_MODEL_CONFIG)', () => {
  // The same check as `goondan validate` (E_CONFIG_MOCK_SCRIPT): each message names the rule and what to do.
  const invalid: Array<[string, JsonObject, string]> = [
    ['a rule with both reply and toolCalls', { rules: [{ match: 'x', reply: 'a', toolCalls: [{ name: 'a__b' }] }] }, 'rule 0 has both reply and toolCalls; use one'],
    ['a rule without match or regex', { rules: [{ reply: 'a' }] }, 'rule 0 has neither match nor regex'],
    ['an unknown key', { rulez: [] }, 'options has an unknown key "rulez" (allowed: rules, default, latencyMs, chunkDelayMs)'],
    ['`then` after a reply', { rules: [{ match: 'x', reply: 'a', then: 'b' }] }, 'rule 0 has then after a reply; then follows toolCalls only'],
    ['an invalid regex', { rules: [{ regex: '(', reply: 'a' }] }, 'rule 0: regex is not a valid regular expression'],
    ['an unknown key in a tool call of a further step', { rules: [{ match: 'x', toolCalls: [{ name: 'a' }], then: { toolCalls: [{ name: 'b', arg: {} }] } }] }, 'rule 0: then.toolCalls[0] has an unknown key "arg" (allowed: name, args)'],
  ];
  for (const [what, script, expected] of invalid) {
    test(what, async () => {
      const error = await startEngine(makePlan({ script })).catch((e: unknown) => e);
      expect(EngineError.isInstance(error) && error.code).toBe('E_MODEL_CONFIG');
      expect(String(error)).toContain(expected);
      expect(String(error)).not.toContain('oneOf');
    });
  }
});

describe('the compiled script', () => {
  test('is compiled once per options object (a primed spare and the instance it becomes share it); an equal new object is compiled again', () => {
    const options: JsonObject = { rules: [{ regex: '^hi (\\w+)', reply: 'hello {{match.1}}' }] };
    const first = compileMockScript('m', options);
    expect(compileMockScript('m', options)).toBe(first);
    expect(compileMockScript('m', structuredClone(options))).not.toBe(first);
    // An invalid script is refused every time, never remembered as compiled.
    const invalid: JsonObject = { rules: [{ regex: '(', reply: 'x' }] };
    expect(() => compileMockScript('m', invalid)).toThrow(EngineError);
    expect(() => compileMockScript('m', invalid)).toThrow(EngineError);
  });
});
