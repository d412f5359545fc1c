/**
 * Nothing lost across a crash (ARCHITECTURE §3): a real subprocess running a turn is killed
 * between steps; a new engine on the same state root recovers the unfolded events, recognises the
 * redelivered event and resumes its turn — the input appears exactly once.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createMessage } from '../../agent-process/conversation/message-factory.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { MessageEvent } from '../../shared/types/messages.ts';
import { crashScenarioPlan } from '../fixtures/engine/crash-scenario.ts';
import { waitUntil } from '../helpers/wait-for.ts';
import { baseMessages, messageEvents, startEngine, tempStateRoot, userEvent, trackEngines } from './helpers/engine-fixture.ts';

const RUNNER = resolve(import.meta.dir, '../fixtures/engine/crash-runner.ts');
const harnesses = trackEngines();

/** Runs one turn of the crash scenario in a subprocess and kills it while slow__pause sleeps. */
async function crashWhileToolRuns(stateRoot: string, event: AgentEvent, marker: string, idempotentPause: boolean): Promise<void> {
  const child = Bun.spawn([process.execPath, RUNNER, JSON.stringify({ stateRoot, event, idempotentPause })], { stdout: 'pipe', stderr: 'pipe' });
  // The marker is written by the tool: step 0's model call, assistant message and journal record are done.
  await waitUntil(() => existsSync(marker), "the child's tool call to write its marker");
  child.kill('SIGKILL');
  await child.exited;
  expect(child.signalCode).toBe('SIGKILL');
}

describe('crash between steps, then redelivery', () => {
  test('a killed process leaves the turn in events.jsonl; the restarted engine resumes it without a second input, and the interrupted call is not run again', async () => {
    const stateRoot = tempStateRoot();
    const marker = join(stateRoot, 'tool-marker.txt');
    const traceId = '0123456789abcdef0123456789abcdef';
    const event = userEvent(`work ${marker}`, { traceId });
    const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
    await crashWhileToolRuns(stateRoot, event, marker, false);

    // What the crash left: the turn in events.jsonl, nothing folded into base yet, the call journaled as started.
    expect(messageEvents(paths).map((e) => (e.type === 'append' ? e.message.data.role : e.type))).toEqual(['system', 'user', 'assistant']);
    expect(baseMessages(paths)).toEqual([]);
    expect(readFileSync(paths.toolJournal, 'utf8')).toContain('"type":"tool.call.started"');

    // The orchestrator redelivers the unacknowledged event to a fresh engine.
    const h = await startEngine(crashScenarioPlan(), { stateRoot });
    harnesses.push(h);
    expect(readFileSync(paths.messageEvents, 'utf8')).toBe(''); // recovered and folded at start
    const result = await h.engine.runTurn(event);

    expect(result).toMatchObject({ finishReason: 'text_response', stepCount: 2 });
    expect(result.responseText).toContain('E_TOOL_INTERRUPTED');
    const messages = baseMessages(paths);
    expect(messages.filter((m) => m.metadata.eventId === event.id)).toHaveLength(1);
    expect(messages.map((m) => m.data.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(JSON.stringify(messages[3]?.data)).toContain('E_TOOL_INTERRUPTED');
    // At most once: the handler ran in the killed process only.
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toEqual(['started call_1']);
    expect(h.runtimeEvents.filter((e) => e.type === 'tool.called')).toEqual([]);
    // The same turn continues: its turnId is the one the crashed process started.
    expect(result.turnId).toBe(String(messages[1]?.metadata.turnId));
    // Step 0's model call happened in the killed process, which never reported the step: the
    // resumed turn does, with the usage its message kept, and counts it in the turn's usage.
    const cutStepId = messages[2]?.source.type === 'assistant' ? messages[2].source.stepId : '';
    const steps = h.runtimeEvents.flatMap((e) => (e.type === 'step.completed' ? [e] : []));
    expect(steps.map((e) => [e.stepId === cutStepId, e.stepIndex, e.tokenUsage !== undefined])).toEqual([
      [true, 0, true],
      [false, 1, true],
    ]);
    const stepTokens = steps.reduce((sum, e) => sum + (e.tokenUsage?.totalTokens ?? 0), 0);
    expect(stepTokens).toBeGreaterThan(0);
    expect(result.tokenUsage?.totalTokens).toBe(stepTokens);
    // The folded turn no longer needs its journal.
    expect(readFileSync(paths.toolJournal, 'utf8')).toBe('');
    // A second redelivery (crash after the fold, before the ack) only replays the answer.
    const again = await h.engine.runTurn(event);
    expect(again.responseText).toBe(result.responseText);
    expect(baseMessages(paths)).toHaveLength(5);
    // The lines an operator greps by trace after a crash carry it.
    const redelivered = h.logLines().filter((line) => String(line.msg).startsWith('redelivered event'));
    expect(redelivered.map((line) => [line.msg, line.traceId])).toEqual([
      ['redelivered event: resuming its turn', traceId],
      ['redelivered event already answered; returning the stored reply', traceId],
    ]);
  });

  test('an interrupted call of an idempotent export is run again on resume', async () => {
    const stateRoot = tempStateRoot();
    const marker = join(stateRoot, 'tool-marker.txt');
    const event = userEvent(`work ${marker}`);
    await crashWhileToolRuns(stateRoot, event, marker, true);

    const h = await startEngine(crashScenarioPlan({ idempotentPause: true }), { stateRoot });
    harnesses.push(h);
    const result = await h.engine.runTurn(event);
    expect(result).toMatchObject({ finishReason: 'text_response', responseText: 'finished: resumed', stepCount: 2 });
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toEqual(['started call_1', 'resumed call_1']);
  });

  test('files as a crashed process leaves them after a finished tool: the model is called again, the tool is not', async () => {
    const stateRoot = tempStateRoot();
    const marker = join(stateRoot, 'never-written.txt');
    const event = userEvent(`work ${marker}`);
    const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
    const input = createMessage({ role: 'user', content: event.input ?? '' }, { type: 'user' }, { eventId: event.id, turnId: 'turn_crashed' });
    const call = createMessage(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'slow__pause', input: { marker, ms: 1 } }] },
      { type: 'assistant', stepId: 'step_0' },
    );
    const result = createMessage(
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'slow__pause', output: { type: 'text', value: 'slept' } }] },
      { type: 'tool', toolCallId: 'call_1', toolName: 'slow__pause' },
    );
    mkdirSync(dirname(paths.messageEvents), { recursive: true });
    const events: MessageEvent[] = [input, call, result].map((message) => ({ type: 'append', message }));
    writeFileSync(paths.messageEvents, events.map((e) => `${JSON.stringify(e)}\n`).join(''));

    const h = await startEngine(crashScenarioPlan(), { stateRoot });
    harnesses.push(h);
    const turn = await h.engine.runTurn(event);
    expect(turn).toMatchObject({ responseText: 'finished: slept', turnId: 'turn_crashed', stepCount: 2 });
    expect(existsSync(marker)).toBe(false);
    expect(h.runtimeEvents.filter((e) => e.type === 'tool.called')).toEqual([]);
    const stored = baseMessages(paths);
    expect(stored.filter((m) => m.metadata.eventId === event.id)).toHaveLength(1);
    expect(stored.map((m) => m.data.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
  });

  test('an interrupted turn that comes again after a later event’s turn ran is not resumed: its caller gets E_TURN_OVERTAKEN, not an answer to the later input', async () => {
    const stateRoot = tempStateRoot();
    const marker = join(stateRoot, 'never-written.txt');
    const event = userEvent(`work ${marker}`);
    const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
    const input = createMessage({ role: 'user', content: event.input ?? '' }, { type: 'user' }, { eventId: event.id, turnId: 'turn_crashed', traceId: 'a'.repeat(32) });
    const call = createMessage(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'slow__pause', input: { marker, ms: 1 } }] },
      { type: 'assistant', stepId: 'step_0' },
    );
    // The later turn settled the dangling call as interrupted, then answered its own input.
    const settled = createMessage(
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'slow__pause', output: { type: 'error-text', value: 'E_TOOL_INTERRUPTED' } }] },
      { type: 'tool', toolCallId: 'call_1', toolName: 'slow__pause' },
    );
    const later = createMessage({ role: 'user', content: 'a later question' }, { type: 'user' }, { eventId: 'evt_later', turnId: 'turn_later' });
    const answer = createMessage({ role: 'assistant', content: [{ type: 'text', text: 'the later answer' }] }, { type: 'assistant', stepId: 'step_1' });
    mkdirSync(dirname(paths.baseMessages), { recursive: true });
    writeFileSync(paths.baseMessages, [input, call, settled, later, answer].map((m) => `${JSON.stringify(m)}\n`).join(''));

    const h = await startEngine(crashScenarioPlan(), { stateRoot });
    harnesses.push(h);
    const result = await h.engine.runTurn(event);
    expect(result).toMatchObject({ finishReason: 'error', responseText: '', turnId: 'turn_crashed', traceId: 'a'.repeat(32), error: { code: 'E_TURN_OVERTAKEN', details: { overtakenBy: 'evt_later' } } });
    expect(h.runtimeEvents.filter((e) => e.type === 'step.started' || e.type === 'tool.called')).toEqual([]);
    expect(baseMessages(paths).map((m) => m.id)).toEqual([input, call, settled, later, answer].map((m) => m.id));
    expect(h.logLines().some((line) => line.code === 'E_TURN_OVERTAKEN' && line.overtakenBy === 'evt_later')).toBe(true);
    // The instance goes on: the next event is answered as usual.
    const next = await h.engine.runTurn(userEvent('something new'));
    expect(next.finishReason).toBe('text_response');
  });

  test('tool calls left without results by an earlier turn are answered as interrupted before a new input', async () => {
    const stateRoot = tempStateRoot();
    const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
    const old = createMessage({ role: 'user', content: 'old request' }, { type: 'user' }, { eventId: 'evt_old' });
    const dangling = createMessage(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'slow__pause', input: { marker: '/nonexistent', ms: 1 } }] },
      { type: 'assistant', stepId: 'step_0' },
    );
    mkdirSync(dirname(paths.baseMessages), { recursive: true });
    writeFileSync(paths.baseMessages, [old, dangling].map((m) => `${JSON.stringify(m)}\n`).join(''));

    const h = await startEngine(crashScenarioPlan(), { stateRoot });
    harnesses.push(h);
    const result = await h.engine.runTurn(userEvent('something new'));
    expect(result.finishReason).toBe('text_response');
    const stored = baseMessages(paths);
    const roles = stored.map((m) => (m.data.role === 'tool' ? `tool:${m.source.type === 'tool' ? m.source.toolCallId : ''}` : m.data.role));
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool:call_1', 'user', 'assistant']);
    const interrupted = stored[3]?.data;
    expect(JSON.stringify(interrupted)).toContain('E_TOOL_INTERRUPTED');
  });
});

describe('tool-call journal on resume', () => {
  /** Files as a process leaves them when it died after the model asked for slow__pause. */
  function crashedAfterModelCall(stateRoot: string, marker: string, journal: 'none' | 'finished') {
    const event = userEvent(`work ${marker}`);
    const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
    const input = createMessage({ role: 'user', content: event.input ?? '' }, { type: 'user' }, { eventId: event.id, turnId: 'turn_crashed' });
    const call = createMessage(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'slow__pause', input: { marker, ms: 1 } }] },
      { type: 'assistant', stepId: 'step_0' },
    );
    mkdirSync(dirname(paths.messageEvents), { recursive: true });
    const events: MessageEvent[] = [input, call].map((message) => ({ type: 'append', message }));
    writeFileSync(paths.messageEvents, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    if (journal === 'finished') {
      const at = new Date().toISOString();
      const records = [
        { type: 'tool.call.started', messageId: call.id, toolCallId: 'call_1', name: 'slow__pause', args: { marker, ms: 1 }, at },
        { type: 'tool.call.finished', messageId: call.id, toolCallId: 'call_1', result: { toolCallId: 'call_1', toolName: 'slow__pause', status: 'ok', output: 'from the journal' }, at },
      ];
      writeFileSync(paths.toolJournal, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    }
    return { event, paths };
  }

  test('a call that finished before the crash is never run again: its recorded result is reused', async () => {
    const stateRoot = tempStateRoot();
    const marker = join(stateRoot, 'never-written.txt');
    const { event, paths } = crashedAfterModelCall(stateRoot, marker, 'finished');
    const h = await startEngine(crashScenarioPlan(), { stateRoot });
    harnesses.push(h);
    const turn = await h.engine.runTurn(event);
    expect(turn).toMatchObject({ responseText: 'finished: from the journal', turnId: 'turn_crashed', stepCount: 2 });
    expect(existsSync(marker)).toBe(false);
    expect(h.runtimeEvents.filter((e) => e.type === 'tool.called')).toEqual([]);
    expect(baseMessages(paths).map((m) => m.data.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
  });

  test('a call whose handler never started (no journal record) runs on resume', async () => {
    const stateRoot = tempStateRoot();
    const marker = join(stateRoot, 'marker.txt');
    writeFileSync(marker, ''); // pause returns at once when its marker exists
    const { event } = crashedAfterModelCall(stateRoot, marker, 'none');
    const h = await startEngine(crashScenarioPlan(), { stateRoot });
    harnesses.push(h);
    const turn = await h.engine.runTurn(event);
    expect(turn.responseText).toBe('finished: resumed');
    expect(readFileSync(marker, 'utf8').trim()).toBe('resumed call_1');
  });
});
