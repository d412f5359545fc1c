/**
 * logging through the real engine: one structured line per turn/step/tool start, completion and
 * failure, with durations and trace ids, over many turns; tool arguments only when configured and
 * then with secrets redacted; `level` chooses the level of progress lines, failures are errors.
 */
import { describe, expect, test } from 'bun:test';
import type { JsonObject } from '../../shared/types/json.ts';
import { redactArgs } from '../../bundles/base/extensions/logging/redact-args.ts';
import { failTool, fixtureExtension as engineFixtureExtension, makePlan, startEngine, userEvent, type EngineHarness, trackEngines } from '../agent-process/helpers/engine-fixture.ts';
import { baseExtension, vaultTool } from './helpers/extension-plans.ts';

const harnesses = trackEngines();

const SECRET = 'hunter2-very-secret';
const script: JsonObject = {
  rules: [
    { match: 'login', toolCalls: [{ name: 'vault__login', args: { user: 'ann', password: SECRET } }], then: 'logged in' },
    { match: 'fail', toolCalls: [{ name: 'fail__throw', args: { message: 'disk on fire', code: 'E_FIRE' } }], then: 'it failed' },
    { match: 'bad', toolCalls: [{ name: 'vault__login', args: { user: 'ann' } }], then: 'bad call' },
  ],
};

const PINO = { debug: 20, info: 30, warn: 40, error: 50 } as const;

async function engineWith(config: JsonObject, extra: { throwInStep?: boolean } = {}): Promise<EngineHarness> {
  const extensions = [baseExtension('logging', config)];
  if (extra.throwInStep) extensions.push(engineFixtureExtension('boom', 'throwing-middleware.ts', { chain: 'step' }));
  const h = await startEngine(makePlan({ tools: [vaultTool(), failTool()], script, extensions }));
  harnesses.push(h);
  return h;
}

function loggingLines(h: EngineHarness): Array<Record<string, unknown>> {
  return h.logLines().filter((line) => line.extension === 'logging');
}

describe('one line per turn, step and tool call, with durations', () => {
  test('a tool turn logs start and completion of the turn, both steps and the call, in order, with trace ids', async () => {
    const h = await engineWith({});
    const result = await h.engine.runTurn(userEvent('login please'));
    const lines = loggingLines(h);
    expect(lines.map((line) => line.event)).toEqual([
      'turn.started',
      'step.started',
      'tool.called',
      'tool.completed',
      'step.completed',
      'step.started',
      'step.completed',
      'turn.completed',
    ]);
    for (const line of lines) {
      expect(line.level).toBe(PINO.info);
      expect(line.traceId).toBe(result.traceId);
      expect(line.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(line.turnId).toBe(result.turnId);
      if (String(line.event).endsWith('.completed')) expect(line.durationMs).toBeNumber();
    }
    expect(lines.at(-1)).toMatchObject({ stepCount: 2, finishReason: 'text_response', msg: expect.stringMatching(/^turn completed in \d+ ms \(2 steps, text_response\)$/) });
    expect(lines[3]).toMatchObject({ toolName: 'vault__login', status: 'ok', msg: expect.stringMatching(/^tool vault__login completed in \d+ ms \(ok\)$/) });
  });

  test('over 30 turns every turn has exactly one start and one completion, and one start/completion per step', async () => {
    const h = await engineWith({});
    const turns: Array<{ turnId: string; stepCount: number }> = [];
    for (let i = 0; i < 30; i++) {
      const result = await h.engine.runTurn(userEvent(i % 3 === 0 ? `login ${i}` : i % 3 === 1 ? (i % 2 === 0 ? `fail ${i}` : `bad ${i}`) : `hello ${i}`));
      turns.push({ turnId: result.turnId, stepCount: result.stepCount });
    }
    const lines = loggingLines(h);
    for (const { turnId, stepCount } of turns) {
      const mine = lines.filter((line) => line.turnId === turnId);
      const count = (event: string) => mine.filter((line) => line.event === event).length;
      expect({ turnId, started: count('turn.started'), completed: count('turn.completed'), steps: count('step.started'), stepsDone: count('step.completed') }).toEqual({
        turnId,
        started: 1,
        completed: 1,
        steps: stepCount,
        stepsDone: stepCount,
      });
      expect(count('tool.called')).toBe(count('tool.completed') + count('tool.failed'));
    }
  });
});

describe('tool arguments and secrets', () => {
  test('by default no arguments are logged at all', async () => {
    const h = await engineWith({});
    await h.engine.runTurn(userEvent('login'));
    const lines = loggingLines(h);
    expect(lines.some((line) => 'args' in line)).toBe(false);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  test('with includeToolArgs the arguments appear, secret-looking keys redacted', async () => {
    const h = await engineWith({ includeToolArgs: true });
    await h.engine.runTurn(userEvent('login'));
    const lines = loggingLines(h);
    expect(lines.find((line) => line.event === 'tool.called')?.args).toEqual({ user: 'ann', password: '[redacted]' });
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  test('redactArgs: nested secrets, long strings and deep nesting', () => {
    expect(
      redactArgs({ headers: { Authorization: 'Bearer x', accept: 'json' }, apiKey: 'k', api_key: 'k', body: 'b'.repeat(50), list: [{ token: 't' }] }, 10),
    ).toEqual({ headers: { Authorization: '[redacted]', accept: 'json' }, apiKey: '[redacted]', api_key: '[redacted]', body: 'bbbbbbbbbb… (50 chars)', list: [{ token: '[redacted]' }] });
    expect(redactArgs({ a: { b: { c: { d: { e: { f: { g: 1 } } } } } } }, 10)).toEqual({ a: { b: { c: { d: { e: { f: '[object]' } } } } } });
  });
});

describe('levels', () => {
  test('level debug puts progress lines at debug', async () => {
    const h = await engineWith({ level: 'debug' });
    await h.engine.runTurn(userEvent('hello'));
    const levels = new Set(loggingLines(h).map((line) => line.level));
    expect([...levels]).toEqual([PINO.debug]);
  });

  test('a tool error result is a warning naming its code; a throwing handler is an error with its message', async () => {
    const h = await engineWith({});
    await h.engine.runTurn(userEvent('bad arguments'));
    await h.engine.runTurn(userEvent('fail now'));
    const lines = loggingLines(h);
    expect(lines.find((line) => line.event === 'tool.completed')).toMatchObject({ level: PINO.warn, status: 'error', error: { code: 'E_TOOL_INVALID_ARGS' }, toolName: 'vault__login' });
    expect(lines.find((line) => line.event === 'tool.failed')).toMatchObject({
      level: PINO.error,
      toolName: 'fail__throw',
      error: { code: 'E_FIRE', message: 'disk on fire' },
      msg: expect.stringMatching(/^tool fail__throw failed after \d+ ms: E_FIRE: disk on fire$/),
    });
  });

  test('a failing step and the failed turn are errors with their message', async () => {
    const h = await engineWith({}, { throwInStep: true });
    const result = await h.engine.runTurn(userEvent('hello'));
    expect(result.finishReason).toBe('error');
    const lines = loggingLines(h);
    expect(lines.find((line) => line.event === 'step.failed')).toMatchObject({ level: PINO.error, error: { code: 'E_EXT_MIDDLEWARE', message: expect.stringContaining('middleware exploded in step') } });
    expect(lines.find((line) => line.event === 'turn.failed')).toMatchObject({ level: PINO.error, durationMs: expect.any(Number) });
  });

  test('an unknown level is E_EXT_CONFIG', async () => {
    await expect(startEngine(makePlan({ extensions: [baseExtension('logging', { level: 'verbose' })] }))).rejects.toThrow(/E_EXT_CONFIG.*config\.level/);
  });
});
