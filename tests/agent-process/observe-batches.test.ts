/**
 * An agent's runtime events travel in `runtime.observe` batches (issue 12): a loop turn's events in
 * one IPC message, a burst split at 256, every one in order and before anything the process sends
 * after them. Over the real shell in a real child process.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { controlEvent } from '../../shared/ipc/control-protocol.ts';
import { type TypedIpcMessage, validateIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import { testAgentPlan } from '../orchestrator/helpers/core-fixture.ts';
import { testSwarmPlan } from '../helpers/test-plans.ts';
import { waitUntil } from '../helpers/wait-for.ts';

const CHILD = join(import.meta.dir, '../fixtures/shell/observing-child.ts');
const swarm = testSwarmPlan('observe-test', ['observer']);
const received: TypedIpcMessage[] = [];
const child = Bun.spawn([process.execPath, CHILD], {
  serialization: 'json',
  stdio: ['ignore', 'inherit', 'inherit'],
  ipc(raw) {
    const result = validateIpcMessage(raw);
    if (!result.ok) throw new Error(`invalid IPC message: ${result.problems.join('; ')}`);
    received.push(result.value);
    if (result.value.type === 'event' && result.value.payload.type === 'runtime.ready') {
      const assignment = { role: 'agent' as const, agent: 'observer', instanceKey: 'k', stateRoot: '/tmp', agentPlan: testAgentPlan('observer', '/tmp'), swarmPlan: swarm };
      child.send({ type: 'event', from: ORCHESTRATOR, to: 'pool', payload: controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, assignment) });
    }
  },
});
afterAll(() => child.kill('SIGKILL'));

describe('runtime.observe batches', () => {
  test('600 events in one loop turn: batches of at most 256, in order, all before the next message', async () => {
    const types = () => received.flatMap((m) => (m.type === 'event' ? [m.payload.type] : []));
    await waitUntil(() => types().includes('test.after'), 'the event posted after the burst');
    const batches = received.flatMap((m) => (m.type === 'event' && m.payload.type === 'runtime.observe' ? [m.payload.metadata?.events] : []));
    const numbers = batches.flatMap((events) => (Array.isArray(events) ? events.map((e) => (e as { n: number }).n) : []));
    expect(numbers).toEqual(Array.from({ length: 600 }, (_, n) => n));
    expect(batches.length).toBe(3);
    expect(batches.every((events) => Array.isArray(events) && events.length <= 256)).toBe(true);
    // Nothing the runtime sent after the burst overtook it.
    expect(types().indexOf('test.after')).toBeGreaterThan(types().lastIndexOf('runtime.observe'));
  });
});
