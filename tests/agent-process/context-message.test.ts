/**
 * The built-in context-message extension (SPEC.md §5.4, ARCHITECTURE §5): one system message,
 * first in the conversation, not duplicated across turns, replaced when the prompt changes, with
 * optional runtime blocks; attached implicitly unless the agent lists it.
 */
import { describe, expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { CONTEXT_MESSAGE_MARKER } from '../../bundles/base/extensions/context-message/index.ts';
import type { ExtensionPlan } from '../../shared/types/bundle.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { baseMessages, makePlan, makeSwarm, startEngine, tempStateRoot, userEvent, type EngineHarness, trackEngines } from './helpers/engine-fixture.ts';

const harnesses = trackEngines();
const engineFor = harnesses.start;
const systemMessages = (h: EngineHarness) => baseMessages(h.paths).filter((m) => m.data.role === 'system');
const listed = (config: JsonObject): ExtensionPlan => ({
  name: 'context-message',
  packageName: '@goondan/base',
  entryPath: resolve(import.meta.dir, '../../bundles/base/extensions/context-message/index.ts'),
  config,
});

describe('one system message, first, once', () => {
  test('the prompt becomes the first message and is not repeated on later turns', async () => {
    const h = await engineFor(makePlan({ systemPrompt: 'You are terse.' }));
    await h.engine.runTurn(userEvent('one'));
    await h.engine.runTurn(userEvent('two'));
    const messages = baseMessages(h.paths);
    expect(messages[0]?.data).toEqual({ role: 'system', content: 'You are terse.' });
    expect(systemMessages(h)).toHaveLength(1);
    expect(messages[0]?.metadata.pinned).toBe(true);
    expect(messages[0]?.metadata[CONTEXT_MESSAGE_MARKER]).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(messages[0]?.source).toEqual({ type: 'extension', extensionName: 'context-message' });
  });

  test('a changed prompt replaces the message in place', async () => {
    const stateRoot = tempStateRoot();
    const before = await startEngine(makePlan({ systemPrompt: 'Version one.' }), { stateRoot });
    await before.engine.runTurn(userEvent('one'));
    await before.engine.close();
    const after = await engineFor(makePlan({ systemPrompt: 'Version two.' }), { stateRoot });
    await after.engine.runTurn(userEvent('two'));
    const messages = baseMessages(after.paths);
    expect(messages.map((m) => m.data.content)).toEqual([
      'Version two.',
      'one',
      [{ type: 'text', text: 'one' }],
      'two',
      [{ type: 'text', text: 'two' }],
    ]);
  });

  test('a prompt added to an existing conversation goes in front and every other id is kept', async () => {
    const stateRoot = tempStateRoot();
    const before = await startEngine(makePlan(), { stateRoot });
    await before.engine.runTurn(userEvent('one'));
    await before.engine.close();
    const idsBefore = baseMessages(before.paths).map((m) => m.id);
    const after = await engineFor(makePlan({ systemPrompt: 'Now with a prompt.' }), { stateRoot });
    await after.engine.runTurn(userEvent('two'));
    const messages = baseMessages(after.paths);
    expect(messages[0]?.data.content).toBe('Now with a prompt.');
    expect(messages.slice(1, 3).map((m) => m.id)).toEqual(idsBefore);
  });

  test('no prompt and no blocks: no system message at all (the core injects no text)', async () => {
    const h = await engineFor(makePlan());
    await h.engine.runTurn(userEvent('hi'));
    expect(systemMessages(h)).toEqual([]);
  });
});

describe('runtime blocks per config', () => {
  test('[runtime_call] (default on) describes an inter-agent caller', async () => {
    const h = await engineFor(makePlan({ systemPrompt: 'Review things.' }));
    await h.engine.runTurn(userEvent('check', { source: { kind: 'agent', name: 'writer', instanceKey: 'user-1' }, replyTo: { target: 'writer', correlationId: 'c1' } }));
    expect(systemMessages(h)[0]?.data.content).toBe(
      'Review things.\n\n[runtime_call]\ncallerAgent: writer\ncallerInstanceKey: user-1\nreplyExpected: yes (your final answer is sent back to the caller)',
    );
  });

  test('listing the extension uses its config and does not attach a second copy', async () => {
    const h = await engineFor(makePlan({ systemPrompt: 'P.', extensions: [listed({ includeCatalog: true, includeInbound: true, includeCall: false })] }), {
      swarm: makeSwarm(['tester', 'reviewer']),
    });
    const event = userEvent('hi');
    await h.engine.runTurn(event);
    const [system, ...others] = systemMessages(h);
    expect(others).toEqual([]);
    expect(system?.data.content).toBe(
      [
        'P.',
        '',
        '[runtime_catalog]',
        'swarm: test-swarm',
        'self: tester',
        'entryAgent: tester',
        'callableAgents: reviewer',
        '',
        '[runtime_inbound]',
        `eventId: ${event.id}`,
        'eventType: api.input',
        'source: api/test',
        'instanceKey: user-1',
        `createdAt: ${event.createdAt}`,
      ].join('\n'),
    );
  });

  test("a connector event's properties are listed in [runtime_inbound] as properties.<key> (not text: that is the user message)", async () => {
    const h = await engineFor(makePlan({ systemPrompt: 'P.', extensions: [listed({ includeInbound: true, includeCall: false })] }));
    const event = userEvent('hi', { source: { kind: 'connector', name: 'tg', event: 'telegram_message', chat_id: '4242', username: 'ann', text: 'hi' } });
    await h.engine.runTurn(event);
    const [system] = systemMessages(h);
    expect(system?.data.content).toContain('source: connector/tg\n');
    expect(system?.data.content).toContain('\nproperties.chat_id: 4242\nproperties.username: ann');
    expect(system?.data.content).not.toContain('properties.event');
    expect(system?.data.content).not.toContain('properties.text');
  });
});
