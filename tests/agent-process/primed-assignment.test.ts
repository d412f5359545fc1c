/**
 * A spare primed with an agent's plans is assigned without them (`asPrimed`, issue 12): the
 * orchestrator leaves them out only when they are the very plans it primed the spare with, and
 * the spare puts back what it holds — or refuses, retryably, when it holds nothing for that agent.
 * The last two over the real agent entry in a real child process.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inReplyToOf, makeEvent, ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { type AgentAssignment, type ControlPayloads, controlEvent, parseControl } from '../../shared/ipc/control-protocol.ts';
import { assignmentFor, resolveAssignment } from '../../shared/ipc/primed-assignment.ts';
import { testAgentPlan } from '../orchestrator/helpers/core-fixture.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { testSwarmPlan } from '../helpers/test-plans.ts';
import { spawnAgent } from './helpers/agent-child.ts';

const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-primed-assignment-'));
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));
const prime: ControlPayloads['runtime.prime'] = { agentPlan: testAgentPlan('a', stateRoot), swarmPlan: testSwarmPlan('primed-test', ['a', 'b']) };
const assignment: AgentAssignment = { role: 'agent', agent: 'a', instanceKey: 'k', stateRoot, agentPlan: prime.agentPlan, swarmPlan: prime.swarmPlan };

describe('what the orchestrator sends a primed spare', () => {
  test('the plans it was primed with are left out; the assignment still passes the runtime.assign schema', () => {
    const sent = assignmentFor(assignment, prime);
    expect(sent).toEqual({ role: 'agent', agent: 'a', instanceKey: 'k', stateRoot, asPrimed: true });
    expect(parseControl(controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, sent)).ok).toBe(true);
    expect(assignmentFor({ ...assignment, replicateState: true }, prime)).toEqual({ role: 'agent', agent: 'a', instanceKey: 'k', stateRoot, replicateState: true, asPrimed: true });
  });

  test('plans that are not the primed ones (another agent, a reload that made equal new ones), or no prime: the whole assignment', () => {
    expect(assignmentFor(assignment, undefined)).toBe(assignment);
    expect(assignmentFor({ ...assignment, agent: 'b', agentPlan: testAgentPlan('b', stateRoot) }, prime)).toMatchObject({ agentPlan: { name: 'b' } });
    const reloaded = { ...assignment, agentPlan: structuredClone(prime.agentPlan), swarmPlan: structuredClone(prime.swarmPlan) };
    expect(assignmentFor(reloaded, prime)).toBe(reloaded);
  });

  test('an asPrimed assignment missing its identity is refused by the schema', () => {
    const parsed = parseControl(makeEvent('runtime.assign', ORCHESTRATOR_SOURCE, { metadata: { role: 'agent', agent: 'a', stateRoot, asPrimed: true } }));
    expect(parsed.ok).toBe(false);
  });
});

describe('what a spare makes of it', () => {
  test('puts back the plans it holds; holds none for another agent, or when it was never primed', () => {
    const sent = assignmentFor(assignment, prime);
    expect(resolveAssignment(sent, prime)).toEqual(assignment);
    expect(resolveAssignment({ role: 'agent', agent: 'b', instanceKey: 'k', stateRoot, asPrimed: true }, prime)).toBeUndefined();
    expect(resolveAssignment(sent, undefined)).toBeUndefined();
    expect(resolveAssignment(assignment, undefined)).toBe(assignment);
  });

  test('a real agent process never primed refuses an asPrimed assignment with E_ASSIGNMENT_NOT_PRIMED, retryable', async () => {
    const child = spawnAgent();
    try {
      await child.next('runtime.ready');
      child.send(controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, assignmentFor(assignment, prime)));
      const failed = await child.next('runtime.failed');
      expect(failed.metadata).toMatchObject({ error: { code: 'E_ASSIGNMENT_NOT_PRIMED' }, retryable: true });
    } finally {
      child.kill();
    }
  });

  test('a real agent process sent an assignment its schema refuses fails at once with E_ASSIGNMENT_INVALID naming the path, not retryable', async () => {
    const child = spawnAgent();
    try {
      await child.next('runtime.ready');
      const malformed: JsonObject = JSON.parse(JSON.stringify({ ...assignment, agentPlan: { ...assignment.agentPlan, maxToolResultBytes: 'many' } }));
      child.send(makeEvent('runtime.assign', ORCHESTRATOR_SOURCE, { metadata: malformed }));
      const failed = await child.next('runtime.failed');
      expect(failed.metadata).toMatchObject({ error: { code: 'E_ASSIGNMENT_INVALID' }, retryable: false });
      expect(String((failed.metadata?.error as { message?: string } | undefined)?.message)).toContain('/agentPlan');
    } finally {
      child.kill();
    }
  });

  test('a real agent process primed with the plans starts from them and answers the event sent right behind its assignment', async () => {
    const child = spawnAgent();
    try {
      await child.next('runtime.ready');
      child.send(controlEvent('runtime.prime', ORCHESTRATOR_SOURCE, prime));
      expect((await child.next('runtime.primed')).metadata).toEqual({ agent: 'a', ok: true });
      child.send(controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, assignmentFor(assignment, prime)));
      // Right behind the assignment, as the orchestrator sends it: it waits in the shell until the agent is built.
      child.send(makeEvent('api.input', { kind: 'api', name: 'test' }, { input: 'hello', instanceKey: 'k', replyTo: { target: ORCHESTRATOR, correlationId: 'corr-1' } }));
      const reply = await child.reply('corr-1');
      expect(reply.metadata?.status).toBe('ok');
      const order = child.received().map((event) => (inReplyToOf(event) === 'corr-1' ? 'reply' : event.type));
      expect(order.indexOf('runtime.started')).toBeGreaterThanOrEqual(0);
      expect(order.indexOf('runtime.started')).toBeLessThan(order.indexOf('runtime.turn.started'));
      expect(order.indexOf('runtime.turn.started')).toBeLessThan(order.indexOf('reply'));
    } finally {
      child.kill();
    }
  });
});
