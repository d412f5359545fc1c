import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConversation } from '../../orchestrator/inspect/conversation-reader.ts';
import { readJsonLines } from '../../orchestrator/inspect/jsonl-file.ts';
import { foldedEvents, rewritingBase } from '../../shared/state-paths.ts';
import { callEdges, recentTraces, traceEvents } from '../../orchestrator/inspect/runtime-event-log.ts';
import { demoTrace, TRACE } from '../studio/trace-events.ts';

const dirs: string[] = [];
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'goondan-inspect-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const lines = (values: unknown[]) => `${values.map((v) => JSON.stringify(v)).join('\n')}\n`;
const message = (id: string, text: string) => ({ id, data: { role: 'user', content: text }, metadata: {}, createdAt: '2026-01-01T00:00:00.000Z', source: { type: 'user' } });

describe('reading an instance conversation (base.jsonl + events.jsonl, SPEC.md §3.1)', () => {
  test('the base with every pending event applied in order', () => {
    const d = dir();
    writeFileSync(join(d, 'base.jsonl'), lines([message('a', 'one'), message('b', 'two'), message('c', 'three')]));
    writeFileSync(
      join(d, 'events.jsonl'),
      lines([
        { type: 'append', message: message('d', 'four') },
        { type: 'replace', targetId: 'b', message: message('b2', 'TWO') },
        { type: 'remove', targetId: 'c' },
        // Replayed over a base that already holds it (crash between fold and clear): once.
        { type: 'append', message: message('a', 'one') },
        { type: 'remove', targetId: 'gone' },
      ]),
    );
    expect(readConversation({ base: join(d, 'base.jsonl'), edits: join(d, 'base-edits.jsonl'), events: join(d, 'events.jsonl') }).map((m) => m.data.content)).toEqual(['one', 'TWO', 'four']);
  });

  test('the base’s edits apply before the running turn’s events; an edit of a message already replaced is skipped', () => {
    const d = dir();
    writeFileSync(join(d, 'base.jsonl'), lines([message('s1', 'prompt for event 1'), message('a', 'one')]));
    writeFileSync(
      join(d, 'base-edits.jsonl'),
      lines([
        { type: 'replace', targetId: 's1', message: message('s2', 'prompt for event 2') },
        { type: 'replace', targetId: 'gone', message: message('x', 'never') },
        { type: 'remove', targetId: 'a' },
      ]),
    );
    writeFileSync(join(d, 'events.jsonl'), lines([{ type: 'replace', targetId: 's2', message: message('s3', 'prompt for event 3') }, { type: 'append', message: message('b', 'two') }]));
    expect(readConversation({ base: join(d, 'base.jsonl'), edits: join(d, 'base-edits.jsonl'), events: join(d, 'events.jsonl') }).map((m) => m.data.content)).toEqual(['prompt for event 3', 'one', 'two']);
  });

  test('a rewrite a crash left past its commit point reads as its new base alone, before the agent finishes it', () => {
    const d = dir();
    const files = { base: join(d, 'base.jsonl'), edits: join(d, 'base-edits.jsonl'), events: join(d, 'events.jsonl') };
    writeFileSync(files.base, lines([message('s1', 'old prompt'), message('a', 'one')]));
    writeFileSync(files.edits, lines([{ type: 'replace', targetId: 's1', message: message('s2', 'prompt') }]));
    writeFileSync(rewritingBase(files.base), lines([message('s2', 'prompt'), message('a', 'one'), message('y', 'final')]));
    // Before the commit point the new base is not the conversation yet.
    writeFileSync(files.events, lines([{ type: 'append', message: message('x', 'draft') }, { type: 'replace', targetId: 'x', message: message('y', 'final') }]));
    expect(readConversation(files).map((m) => m.id)).toEqual(['s2', 'a', 'y']);
    renameSync(files.events, foldedEvents(files.events));
    expect(readConversation(files).map((m) => m.id)).toEqual(['s2', 'a', 'y']);
    // The new base renamed in, its stale edits not yet emptied: they are not read.
    renameSync(rewritingBase(files.base), files.base);
    writeFileSync(files.edits, lines([{ type: 'replace', targetId: 'a', message: message('s1', 'stale') }]));
    expect(readConversation(files).map((m) => m.id)).toEqual(['s2', 'a', 'y']);
  });

  test('truncate empties it; torn and foreign lines are skipped; missing files are an empty conversation', () => {
    const d = dir();
    writeFileSync(join(d, 'base.jsonl'), `${lines([message('a', 'one'), { not: 'a message' }])}{"id":"torn`);
    writeFileSync(join(d, 'events.jsonl'), lines([{ type: 'truncate' }, { type: 'append', message: message('z', 'fresh') }, { type: 'bogus' }]));
    expect(readConversation({ base: join(d, 'base.jsonl'), edits: join(d, 'base-edits.jsonl'), events: join(d, 'events.jsonl') }).map((m) => m.id)).toEqual(['z']);
    expect(readConversation({ base: join(d, 'none.jsonl'), edits: join(d, 'none3.jsonl'), events: join(d, 'none2.jsonl') })).toEqual([]);
  });

  test('a tail read keeps only whole lines of the window', () => {
    const d = dir();
    const file = join(d, 'x.jsonl');
    writeFileSync(file, lines([{ n: 1 }, { n: 2 }, { n: 3 }]));
    expect(readJsonLines(file, 16)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(readJsonLines(file, 15)).toEqual([{ n: 3 }]);
    expect(readJsonLines(file)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});

describe('runtime events across instances', () => {
  const files = () => {
    const d = dir();
    const writer = join(d, 'writer.jsonl');
    const reviewer = join(d, 'reviewer.jsonl');
    const other = { ...demoTrace[0], traceId: 'a'.repeat(32), spanId: 'other', timestamp: '2026-01-01T13:00:00.000Z' };
    writeFileSync(writer, lines([...demoTrace.filter((e) => e.agentName === 'writer'), other, { type: 'turn.started', junk: true }]));
    writeFileSync(reviewer, lines(demoTrace.filter((e) => e.agentName === 'reviewer')));
    return [writer, reviewer];
  };

  test('one trace: every instance file, merged in time order', () => {
    const events = traceEvents(files(), TRACE);
    expect(events.map((e) => `${e.agentName}:${e.type}`)).toEqual(demoTrace.map((e) => `${e.agentName}:${e.type}`));
  });

  test('recent traces, newest first, with the agent that began each, status and duration', () => {
    const traces = recentTraces(files(), 10);
    expect(traces.map((t) => t.traceId)).toEqual(['a'.repeat(32), TRACE]);
    expect(traces[0]).toMatchObject({ status: 'running', agent: 'writer', durationMs: null });
    expect(traces[1]).toMatchObject({ status: 'ok', agent: 'writer', instanceKey: 'default', agents: ['writer', 'reviewer'], durationMs: 610, turns: 2 });
    expect(recentTraces(files(), 1)).toHaveLength(1);
  });

  test('the call graph: agents__* tool calls by caller and target, counted', () => {
    expect(callEdges(files())).toEqual([{ from: 'writer', to: 'reviewer', count: 1, lastAt: demoTrace[2]?.timestamp ?? '' }]);
  });

  test('a turn resumed in a new process (a new span, the same turnId) is one turn: done when it ends, timed from its first start, its calls counted once', () => {
    const traceId = 'b'.repeat(32);
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 14, 0, 0, 0) + ms).toISOString();
    const event = (spanId: string, ms: number) => ({ traceId, agentName: 'writer', instanceKey: 'resumed', spanId, timestamp: at(ms), turnId: 't9' });
    const call = { stepId: 's0', toolCallId: 'c1', toolName: 'agents__request', args: { target: 'reviewer', input: 'review this' } };
    const file = join(dir(), 'writer.jsonl');
    writeFileSync(
      file,
      lines([
        { type: 'turn.started', ...event('first', 0), eventId: 'e9' },
        { type: 'tool.called', ...event('first-tool', 100), ...call },
        // Passivated while it waited; resumed a minute later in a new process.
        { type: 'turn.started', ...event('second', 60_000), eventId: 'e9' },
        { type: 'tool.called', ...event('second-tool', 60_010), ...call },
        { type: 'turn.completed', ...event('second', 61_000), stepCount: 2, duration: 1_000, finishReason: 'text_response' },
      ]),
    );
    expect(recentTraces([file], 10)).toEqual([
      { traceId, startedAt: at(0), agent: 'writer', instanceKey: 'resumed', agents: ['writer'], status: 'ok', durationMs: 61_000, turns: 1 },
    ]);
    expect(callEdges([file]).map((edge) => edge.count)).toEqual([1]);
  });
});
