/**
 * The real daemon with the mock model: replies over HTTP and `goondan send`, inter-agent requests
 * with one trace, per-instance isolation, unknown targets and call cycles.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { GOONDAN_BIN, REPO_ROOT, readRuntimeEvents, sharedDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const WORKSPACE = 'e2e';
const daemon = sharedDaemon(BUNDLE);

describe('replies reach the caller', () => {
  test('POST /v1/events waits for the entry agent and returns its reply with turn and trace ids', async () => {
    const { status, body } = await daemon().send({ input: 'hello there', instanceKey: 'http-1' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', output: 'alpha got: hello there' });
    expect(String(body.traceId)).toMatch(/^[0-9a-f]{32}$/);
    expect(String(body.turnId)).not.toBe('');
  });

  test('wait=false answers 202 with the event id, and the event is still processed', async () => {
    const { status, body } = await daemon().send({ input: 'fire and forget', instanceKey: 'http-2', wait: false });
    expect(status).toBe(202);
    expect(String(body.eventId)).toStartWith('evt_');
    const paths = instancePaths(daemon().stateRoot, WORKSPACE, 'alpha', 'http-2');
    await waitFor("alpha's answer in its conversation", () => readIfExists(paths.baseMessages), (text) => text.includes('alpha got: fire and forget'));
  });

  test('goondan send prints the reply of the running daemon', async () => {
    const proc = Bun.spawn([GOONDAN_BIN, 'send', 'from the cli', '--agent', 'beta', '--instance', 'cli-1', '--state-root', daemon().stateRoot], {
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out.trim()).toBe('beta got: from the cli');
  });
});

describe('inter-agent requests (tool spec §11)', () => {
  test("agent A asks agent B with agents__request and answers with B's reply", async () => {
    const { body } = await daemon().send({ input: 'ask beta what is two plus two', instanceKey: 'trace-1' });
    expect(body).toMatchObject({ status: 'ok', output: 'beta said: beta got: what is two plus two' });
  });

  test('under fsync: batch B’s answer is forwarded before B synced its turn, and A is told once it has', async () => {
    const { body } = await daemon().send({ input: 'ask beta early bird', instanceKey: 'early-1' });
    expect(body).toMatchObject({ status: 'ok', output: 'beta said: beta got: early bird' });
    const forwarded = await daemon().waitForLog('the early forward', (l) => l.msg === 'reply forwarded before its callee synced its turn' && l.callee === 'beta:early-1');
    const told = await daemon().waitForLog('the notice', (l) => l.msg === 'told the requester its early reply is on disk' && l.correlationId === forwarded.correlationId);
    expect(told.requester).toBe('alpha:early-1');
    expect(daemon().logs.indexOf(forwarded)).toBeLessThan(daemon().logs.indexOf(told));
  });

  test("one traceId across both agents; B's turn is parented by A's tool span", async () => {
    const { body } = await daemon().send({ input: 'ask beta trace me', instanceKey: 'trace-2' });
    const traceId = String(body.traceId);
    const alpha = await readRuntimeEvents(daemon().stateRoot, WORKSPACE, 'alpha', 'trace-2');
    const beta = await readRuntimeEvents(daemon().stateRoot, WORKSPACE, 'beta', 'trace-2');
    expect(alpha.length).toBeGreaterThan(0);
    expect(beta.length).toBeGreaterThan(0);
    for (const event of [...alpha, ...beta]) expect(event.traceId).toBe(traceId);
    const toolCall = alpha.find((e) => e.type === 'tool.called' && e.toolName === 'agents__request');
    const betaTurn = beta.find((e) => e.type === 'turn.started');
    expect(toolCall?.spanId).toBeString();
    expect(betaTurn?.parentSpanId).toBe(String(toolCall?.spanId));
  });

  test('the default instanceKey of a call is the caller’s own', async () => {
    await daemon().send({ input: 'ask beta same key please', instanceKey: 'key-x' });
    const beta = await readRuntimeEvents(daemon().stateRoot, WORKSPACE, 'beta', 'key-x');
    expect(beta.some((e) => e.type === 'turn.completed')).toBe(true);
  });

  test('an unknown target comes back to the model as AGENT_NOT_FOUND, not a hang', async () => {
    const { body } = await daemon().send({ input: 'ask nobody are you there', instanceKey: 'unknown-1' });
    expect(body.status).toBe('ok');
    expect(String(body.output)).toContain('AGENT_NOT_FOUND');
  });

  test('a cycle A→B→A on the same instances is refused with CIRCULAR_CALL_DETECTED', async () => {
    const { body } = await daemon().send({ input: 'ask beta ask alpha are we looping', instanceKey: 'cycle-1' });
    expect(body.status).toBe('ok');
    expect(String(body.output)).toStartWith('beta said: alpha said: ');
    expect(String(body.output)).toContain('CIRCULAR_CALL_DETECTED');
  });

  test('agents__send is fire-and-forget: the target still gets its turn', async () => {
    const { body } = await daemon().send({ input: 'tell gamma a note for later', instanceKey: 'send-1' });
    expect(body.output).toBe('sent to gamma');
    const paths = instancePaths(daemon().stateRoot, WORKSPACE, 'gamma', 'send-1');
    await waitFor("gamma's answer in its conversation", () => readIfExists(paths.baseMessages), (text) => text.includes('gamma got: a note for later'));
  });
});

describe('per-instance isolation', () => {
  test('two instance keys run in two processes with separate histories', async () => {
    const one = await daemon().send({ input: 'whats your pid', instanceKey: 'iso-1' });
    const two = await daemon().send({ input: 'whats your pid', instanceKey: 'iso-2' });
    const pidOf = (output: unknown) => Number(String(output).replace('alpha pid ', ''));
    expect(pidOf(one.body.output)).toBeGreaterThan(0);
    expect(pidOf(two.body.output)).toBeGreaterThan(0);
    expect(pidOf(one.body.output)).not.toBe(pidOf(two.body.output));
    await daemon().send({ input: 'remember the secret word is heron', instanceKey: 'iso-1' });
    const first = readIfExists(instancePaths(daemon().stateRoot, WORKSPACE, 'alpha', 'iso-1').baseMessages);
    const second = readIfExists(instancePaths(daemon().stateRoot, WORKSPACE, 'alpha', 'iso-2').baseMessages);
    expect(first).toContain('heron');
    expect(second).not.toContain('heron');
    const processes = await daemon().processes();
    const rows = processes.filter((p) => p.agent === 'alpha' && (p.instanceKey === 'iso-1' || p.instanceKey === 'iso-2'));
    expect(new Set(rows.map((r) => r.pid)).size).toBe(2);
  });
});

function readIfExists(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

describe('agents__request async, spawn, list, catalog (SPEC.md §2.6)', () => {
  test('async: the call returns at once and the reply is injected into the caller before a later step', async () => {
    // Step 0 asks beta async; step 1 asks beta sync, which beta answers only after the async
    // request: the async reply arrives while alpha's turn runs (see the fixture's `later` rule).
    const { body } = await daemon().send({ input: 'later beta background work', instanceKey: 'async-1' });
    // The turn's last step saw the reply: the mock answered it as the latest user message.
    expect(body).toMatchObject({ status: 'ok', output: 'alpha got: beta got: background work' });
    const base = readFileSync(instancePaths(daemon().stateRoot, WORKSPACE, 'alpha', 'async-1').baseMessages, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { data: { role: string; content: unknown }; metadata: Record<string, unknown> });
    const asyncResult = base.find((m) => m.data.role === 'tool');
    // The async call's own result is pending (tool spec §10.2; its handle is checked below), not the reply.
    // (No asymmetric matcher here: bun's toMatchObject writes them into the received object.)
    expect(asyncResult?.data.content).toMatchObject([{ toolName: 'agents__request', output: { value: { status: 'pending', output: { target: 'beta' } } } }]);
    // Injected mid-turn — after the step that made the call, right before the step that answered —
    // not at the start of a later turn.
    const shape = base.map((m) => (m.metadata.__goondanInterAgentResponse !== undefined ? 'reply' : m.data.role));
    expect(shape.slice(0, 4)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(shape.slice(-2)).toEqual(['reply', 'assistant']);
    const injected = shape.indexOf('reply');
    expect(base[injected]?.metadata.__goondanInterAgentResponse).toMatchObject({ kind: 'inter_agent_response', status: 'ok', fromAgentId: 'beta', async: true });
    // tool spec §10.2: the call itself answered pending, its handle the request's correlation id.
    const pending = base.flatMap((m) => (m.data.role === 'tool' ? JSON.stringify(m.data) : []))[0] ?? '';
    const response = base[injected]?.metadata.__goondanInterAgentResponse;
    const requestId = typeof response === 'object' && response !== null && 'requestId' in response ? String(response.requestId) : 'missing';
    expect(pending).toContain(`"value":{"status":"pending","handle":"${requestId}"`);
    expect(JSON.stringify(base[injected]?.data)).toContain('beta got: background work');
  });

  test('spawn starts an instance ahead of time; list and catalog describe the swarm', async () => {
    const spawned = await daemon().send({ input: 'spawn gamma as mgmt/warm-1', instanceKey: 'mgmt' });
    expect(JSON.parse(String(spawned.body.output))).toEqual({ target: 'gamma', instanceKey: 'mgmt/warm-1', spawned: true });
    expect((await daemon().processes()).some((p) => p.agent === 'gamma' && p.instanceKey === 'mgmt/warm-1')).toBe(true);
    const listed = JSON.parse(String((await daemon().send({ input: 'list instances', instanceKey: 'mgmt' })).body.output)) as { agents: Array<Record<string, unknown>> };
    expect(listed.agents).toContainEqual(expect.objectContaining({ target: 'gamma', instanceKey: 'mgmt/warm-1', ownerAgent: 'alpha', ownerInstanceKey: 'mgmt' }));
    const catalog = JSON.parse(String((await daemon().send({ input: 'who can i call', instanceKey: 'mgmt' })).body.output)) as Record<string, unknown>;
    expect(catalog).toMatchObject({ swarmName: 'e2e', entryAgent: 'alpha', selfAgent: 'alpha' });
    expect(catalog.callableAgents).toEqual(['beta', 'gamma', 'crashy']);
  });
});
