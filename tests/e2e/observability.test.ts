/**
 * What operators look at: the SSE stream, /metrics, `goondan ps`, `goondan logs`, `goondan
 * instance`, and JSON logs on stdout.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { GOONDAN_BIN, REPO_ROOT, sharedDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemon = sharedDaemon(BUNDLE);

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([GOONDAN_BIN, ...args, '--state-root', daemon().stateRoot], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
  return { code, out, err };
}

describe('GET /v1/events/stream (SSE)', () => {
  test('streams turn, step and tool events as they happen, filtered by instance', async () => {
    const controller = new AbortController();
    const response = await daemon().api('/v1/events/stream?instanceKey=sse-1', { signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const seen: string[] = [];
    let streamed = '';
    void (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        streamed += decoder.decode(value, { stream: true });
        // Default `message` events whose data is the runtime event `{type, …}`.
        for (const match of streamed.matchAll(/^data: \{"type":"([^"]+)"/gm)) if (!seen.includes(match[1] ?? '')) seen.push(match[1] ?? '');
      }
    })().catch(() => {});
    await daemon().send({ input: 'whats your pid', instanceKey: 'sse-1' });
    await daemon().send({ input: 'not streamed', instanceKey: 'sse-2' });
    // The events of sse-1 reached the orchestrator before its reply; the stream may still be on its way.
    await waitFor('turn.completed on the stream (event types so far)', () => [...seen], (types) => types.includes('turn.completed'));
    controller.abort();
    expect(seen).toEqual(expect.arrayContaining(['turn.started', 'step.started', 'tool.called', 'tool.completed', 'step.completed', 'turn.completed']));
    expect(streamed).not.toContain('sse-2');
  });
});

describe('GET /metrics (Prometheus text)', () => {
  test('counts processes, routed events, turns, tool calls and tokens', async () => {
    await daemon().send({ input: 'whats your pid', instanceKey: 'metrics' });
    const text = await (await daemon().api('/metrics')).text();
    expect(text).toMatch(/^goondan_processes\{kind="agent",status="idle"\} \d+$/m);
    expect(text).toMatch(/^goondan_events_routed_total\{kind="request"\} \d+$/m);
    expect(text).toMatch(/^goondan_turns_total\{agent="alpha",result="text_response"\} \d+$/m);
    expect(text).toMatch(/^goondan_tool_calls_total\{tool="probe__pid",status="ok"\} \d+$/m);
    expect(text).toMatch(/^goondan_tokens_total\{agent="alpha",kind="prompt"\} \d+$/m);
    expect(text).toContain('# TYPE goondan_turns_total counter');
  });
});

describe('CLI against the running daemon', () => {
  test('goondan ps lists agent processes with pid and status', async () => {
    await daemon().send({ input: 'hello', instanceKey: 'ps-1' });
    // The reply can overtake the agent's "turn completed" note, which sets the status back to idle.
    const table = await waitFor('alpha ps-1 idle in `goondan ps`', () => cli('ps'), (ps) => /^alpha\s+ps-1\s+\d+\s+idle/m.test(ps.out));
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^NAME\s+INSTANCE\s+PID\s+STATUS/m);
    const json = await cli('ps', '--json');
    const rows = JSON.parse(json.out) as Array<{ agent: string; instanceKey: string; pid: number }>;
    expect(rows.find((r) => r.instanceKey === 'ps-1')?.pid).toBeGreaterThan(0);
  });

  test('goondan logs filters runtime events by agent, instance and trace', async () => {
    const { body } = await daemon().send({ input: 'ask beta log me', instanceKey: 'logs-1' });
    const traceId = String(body.traceId);
    const byTrace = await cli('logs', '--trace', traceId, '--json');
    expect(byTrace.code).toBe(0);
    const events = byTrace.out.trim().split('\n').map((l) => JSON.parse(l) as { agentName: string; traceId: string; type: string });
    expect(new Set(events.map((e) => e.agentName))).toEqual(new Set(['alpha', 'beta']));
    expect(events.every((e) => e.traceId === traceId)).toBe(true);
    const betaOnly = await cli('logs', '--agent', 'beta', '--instance', 'logs-1');
    expect(betaOnly.out).toContain('beta@logs-1');
    expect(betaOnly.out).not.toContain('alpha@');
  });

  test('goondan logs -f follows new events as they are written, and exits 0 on SIGINT', async () => {
    const follower = Bun.spawn([GOONDAN_BIN, 'logs', '-f', '--instance', 'follow-1', '--json', '--state-root', daemon().stateRoot], {
      stdout: 'pipe',
      stderr: 'pipe',
      stdin: 'ignore',
    });
    let output = '';
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of follower.stdout) output += decoder.decode(chunk, { stream: true });
    })();
    const completedTurns = () => output.split('\n').filter((line) => line.includes('"turn.completed"')).length;
    // The first turn may be printed from the file or followed; once it shows, the follower is running …
    await daemon().send({ input: 'whats your pid', instanceKey: 'follow-1' });
    await waitFor('the first turn in the follower (its output so far)', () => output, () => completedTurns() === 1);
    // … so this one can only reach it by following the file.
    await daemon().send({ input: 'whats your pid again', instanceKey: 'follow-1' });
    await waitFor('the second turn in the follower (its output so far)', () => output, () => completedTurns() === 2);
    const types = output.trim().split('\n').map((l) => (JSON.parse(l) as { type: string; instanceKey: string }));
    expect(types.every((e) => e.instanceKey === 'follow-1')).toBe(true);
    expect(types.map((e) => e.type)).toContain('tool.completed');
    follower.kill('SIGINT');
    expect(await follower.exited).toBe(0);
  });

  test('goondan instance list shows instances; delete stops them and removes their state', async () => {
    await daemon().send({ input: 'remember the password is kiwi', instanceKey: 'doomed' });
    const list = await cli('instance', 'list');
    expect(list.out).toMatch(/^doomed\s+alpha\s+e2e\s+\d+/m);
    const root = instancePaths(daemon().stateRoot, 'e2e', 'alpha', 'doomed').root;
    expect(existsSync(root)).toBe(true);
    const deleted = await cli('instance', 'delete', 'doomed');
    expect(deleted.code).toBe(0);
    expect(deleted.out).toContain("deleted instance 'doomed'");
    expect(existsSync(root)).toBe(false);
    expect((await daemon().processes()).some((p) => p.instanceKey === 'doomed')).toBe(false);
    // A deleted conversation starts fresh.
    const again = await daemon().send({ input: 'hello again', instanceKey: 'doomed' });
    expect(again.body.output).toBe('alpha got: hello again');
    const missing = await cli('instance', 'delete', 'never-was');
    expect(missing.code).toBe(1);
  });
});

describe('logs are JSON lines on stdout', () => {
  test('daemon and agent lines parse as JSON with level, time, pid; agent lines name agent and instance', () => {
    expect(daemon().logs.length).toBeGreaterThan(5);
    expect(daemon().logs.every((l) => !('raw' in l))).toBe(true);
    expect(daemon().logs.every((l) => typeof l.level === 'string' && typeof l.time === 'string' && typeof l.pid === 'number')).toBe(true);
    const agentLine = daemon().logs.find((l) => l.name === 'agent');
    expect(agentLine).toMatchObject({ agent: expect.any(String), instanceKey: expect.any(String) });
  });
});
