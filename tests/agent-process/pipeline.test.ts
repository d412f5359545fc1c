/**
 * The turn / step / toolCall chains inside a real engine (SPEC.md §4): onion order across the
 * three chains, priority and registration order, next() at most once, failures that end a turn
 * or a call without an exception, and what each context carries.
 */
import { beforeEach, describe, expect, test } from 'bun:test';
import { EngineError } from '../../agent-process/engine/engine-error.ts';
import { probeData, probeLog, resetProbes } from '../fixtures/engine/extensions/probe-log.ts';
import { echoTool, errorOf, fixtureExtension, makePlan, removeDir, startEngine, storedToolResults, userEvent, trackEngines } from './helpers/engine-fixture.ts';
import { within } from '../helpers/wait-for.ts';

const harnesses = trackEngines();
const engineFor = harnesses.start;
beforeEach(() => resetProbes());

const sayScript = { rules: [{ match: 'say', toolCalls: [{ name: 'echo__say', args: { text: 'x' } }], then: 'done' }] };

describe('onion order across turn ⊃ step ⊃ toolCall', () => {
  test('priority (lower = outer) then registration order decide nesting in every chain', async () => {
    const h = await engineFor(
      makePlan({
        tools: [echoTool()],
        script: sayScript,
        extensions: [
          fixtureExtension('inner', 'recorder.ts', { label: 'inner', priority: 5 }),
          fixtureExtension('outer', 'recorder.ts', { label: 'outer', priority: -5 }),
          fixtureExtension('middle', 'recorder.ts', { label: 'middle' }),
        ],
      }),
    );
    await h.engine.runTurn(userEvent('say'));
    const stepRound = ['outer:step:before', 'middle:step:before', 'inner:step:before'];
    const stepUnwind = ['inner:step:after', 'middle:step:after', 'outer:step:after'];
    expect(probeLog).toEqual([
      'outer:turn:before',
      'middle:turn:before',
      'inner:turn:before',
      ...stepRound,
      'outer:toolCall:before',
      'middle:toolCall:before',
      'inner:toolCall:before',
      'inner:toolCall:after',
      'middle:toolCall:after',
      'outer:toolCall:after',
      ...stepUnwind,
      ...stepRound,
      ...stepUnwind,
      'inner:turn:after',
      'middle:turn:after',
      'outer:turn:after',
    ]);
  });

  test('equal priorities keep the order of Agent.spec.extensions', async () => {
    const h = await engineFor(
      makePlan({
        extensions: [fixtureExtension('first', 'recorder.ts', { label: 'first', chains: ['turn'] }), fixtureExtension('second', 'recorder.ts', { label: 'second', chains: ['turn'] })],
      }),
    );
    await h.engine.runTurn(userEvent('hi'));
    expect(probeLog).toEqual(['first:turn:before', 'second:turn:before', 'second:turn:after', 'first:turn:after']);
  });
});

describe('next() at most once', () => {
  test('twice in turn middleware: the turn ends with an error naming the extension', async () => {
    const h = await engineFor(makePlan({ extensions: [fixtureExtension('twice', 'double-next.ts', { chain: 'turn' })] }));
    const result = await h.engine.runTurn(userEvent('hi'));
    expect(result.finishReason).toBe('error');
    expect(result.error?.code).toBe('E_EXT_MIDDLEWARE');
    expect(result.error?.message).toContain("Extension 'twice' called next() more than once in its turn middleware");
    expect(h.runtimeEvents.some((e) => e.type === 'turn.failed')).toBe(true);
  });

  test('twice in step middleware: the step fails and so does the turn', async () => {
    const h = await engineFor(makePlan({ extensions: [fixtureExtension('twice', 'double-next.ts', { chain: 'step' })] }));
    const result = await h.engine.runTurn(userEvent('hi'));
    expect(result.finishReason).toBe('error');
    expect(result.error?.message).toContain("Extension 'twice' called next() more than once in its step middleware");
    expect(h.runtimeEvents.some((e) => e.type === 'step.failed')).toBe(true);
  });

  test('twice in toolCall middleware: that call is an error result, the turn goes on', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: sayScript, extensions: [fixtureExtension('twice', 'double-next.ts', { chain: 'toolCall' })] }));
    const result = await h.engine.runTurn(userEvent('say'));
    expect(result.finishReason).toBe('text_response');
    const error = errorOf(storedToolResults(h.paths)[0]?.output);
    expect(error?.code).toBe('E_EXT_MIDDLEWARE');
    expect(String(error?.message)).toContain("Extension 'twice' called next() more than once in its toolCall middleware");
  });
});

describe('failures inside middleware never escape runTurn', () => {
  for (const chain of ['turn', 'step'] as const) {
    test(`a throwing ${chain} middleware ends the turn with finishReason error`, async () => {
      const h = await engineFor(makePlan({ extensions: [fixtureExtension('boom', 'throwing-middleware.ts', { chain })] }));
      const result = await h.engine.runTurn(userEvent('hi'));
      expect(result.finishReason).toBe('error');
      expect(result.error?.message).toContain(`middleware exploded in ${chain}`);
    });
  }

  test('a throwing toolCall middleware makes that call an E_EXT_MIDDLEWARE result', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: sayScript, extensions: [fixtureExtension('boom', 'throwing-middleware.ts', { chain: 'toolCall' })] }));
    expect((await h.engine.runTurn(userEvent('say'))).finishReason).toBe('text_response');
    expect(errorOf(storedToolResults(h.paths)[0]?.output)?.code).toBe('E_EXT_MIDDLEWARE');
  });
});

describe('middleware contexts (SPEC.md §4.1)', () => {
  test('ctx.agents exists in turn and step middleware, never in toolCall; steps are 0-based and accumulate', async () => {
    const h = await engineFor(makePlan({ tools: [echoTool()], script: sayScript, extensions: [fixtureExtension('probe', 'context-probe.ts')] }));
    const result = await h.engine.runTurn(userEvent('say'));
    const byChain = (chain: string) => probeData.filter((d) => d.chain === chain);
    expect(byChain('turn')[0]?.hasAgents).toBe(true);
    expect(byChain('step').map((d) => [d.stepIndex, d.turnSteps, d.hasAgents, d.turnId])).toEqual([
      [0, 0, true, result.turnId],
      [1, 1, true, result.turnId],
    ]);
    expect(byChain('toolCall')).toEqual([{ chain: 'toolCall', hasAgents: false, toolName: 'echo__say', stepIndex: 0, inCatalog: true }]);
    expect(byChain('turn')[0]?.keys).toEqual(
      ['agentName', 'agents', 'conversationState', 'emitMessageEvent', 'inputEvent', 'instanceKey', 'metadata', 'next', 'runtime', 'traceId', 'turnId'],
    );
  });

  test('ctx.runtime describes the agent, the swarm and the inbound event', async () => {
    const h = await engineFor(makePlan({ systemPrompt: 'Be brief.', extensions: [fixtureExtension('probe', 'context-probe.ts')] }));
    const event = userEvent('hi', { source: { kind: 'agent', name: 'boss', instanceKey: 'user-1' }, replyTo: { target: 'boss', correlationId: 'c-1' } });
    await h.engine.runTurn(event);
    expect(probeData[0]?.runtime).toEqual({
      agent: { name: 'tester', bundleRoot: expect.any(String), prompt: { system: 'Be brief.' } },
      swarm: { swarmName: 'test-swarm', entryAgent: 'tester', selfAgent: 'tester', availableAgents: ['tester'], callableAgents: [] },
      inbound: { eventId: event.id, eventType: 'api.input', sourceKind: 'agent', sourceName: 'boss', createdAt: event.createdAt, instanceKey: 'user-1' },
      call: { callerAgent: 'boss', callerInstanceKey: 'user-1', replyTo: { target: 'boss', correlationId: 'c-1' } },
    });
  });
});

describe('extension loading (SPEC.md §4.3)', () => {
  test('a module without register is E_EXT_LOAD naming extension and file', async () => {
    const ext = fixtureExtension('lazy', 'no-register.ts');
    const error = await startEngine(makePlan({ extensions: [ext] })).catch((e: unknown) => e);
    expect(EngineError.isInstance(error) && error.code).toBe('E_EXT_LOAD');
    expect(EngineError.isInstance(error) && error.details?.file).toBe(ext.entryPath);
    expect(String(error)).toContain("Extension 'lazy'");
  });

  test('a missing module is E_EXT_LOAD', async () => {
    const error = await startEngine(makePlan({ extensions: [fixtureExtension('ghost', 'does-not-exist.ts')] })).catch((e: unknown) => e);
    expect(EngineError.isInstance(error) && error.code).toBe('E_EXT_LOAD');
  });

  test('a register() that throws is E_EXT_INIT', async () => {
    const ext = fixtureExtension('grumpy', 'init-throws.ts');
    const error = await startEngine(makePlan({ extensions: [ext] })).catch((e: unknown) => e);
    expect(EngineError.isInstance(error) && error.code).toBe('E_EXT_INIT');
    expect(String(error)).toContain("Extension 'grumpy': register() failed: cannot initialise");
  });
});

describe('extension lifecycle hooks', () => {
  test('onClose handlers run on engine close; a hanging one is cut off by the timeout', async () => {
    const h = await startEngine(
      makePlan({ extensions: [fixtureExtension('hangs', 'closer.ts', { hang: true }), fixtureExtension('tidy', 'closer.ts')] }),
      { closeTimeoutMs: 100 },
    );
    expect(probeData).toEqual([{ approvals: 'absent' }, { approvals: 'absent' }]);
    // The hanging handler never returns: close() ends only because the timeout cuts it off.
    await within(h.engine.close(), 'engine.close() to cut off the hanging onClose handler');
    expect(probeData.slice(2)).toEqual([{ closed: 'tidy' }]);
    expect(h.logLines().some((l) => l.code === 'E_EXT_CLOSE_TIMEOUT' && l.extension === 'hangs')).toBe(true);
    removeDir(h.stateRoot);
  });

  test('api.approvals is the approver the shell hands to the engine', async () => {
    const asked: string[] = [];
    const h = await engineFor(makePlan({ extensions: [fixtureExtension('policy', 'closer.ts')] }), {
      approvals: { request: async (request) => (asked.push(request.toolName), { approved: false, scope: 'once', decidedBy: 'test' }) },
    });
    expect(asked).toEqual(['bash__exec']);
    expect(probeData[0]).toEqual({ approved: false, decidedBy: 'test' });
    removeDir(h.stateRoot);
  });
});

