import { describe, expect, test } from 'bun:test';
import { makeEvent } from '../../shared/ipc/control-events.ts';
import { validateIpcMessage, validateRuntimeEvent } from '../../shared/ipc/ipc-schemas.ts';
import { errorOutcome, makeReplyEvent, replyOutcomeOf } from '../../shared/ipc/reply-events.ts';
import { callChainOf } from '../../shared/ipc/request-metadata.ts';
import { extendCallChain } from '../../orchestrator/routing/call-chain.ts';

describe('IPC receipt validation (ARCHITECTURE §2)', () => {
  test('only event, shutdown and shutdown_ack exist', () => {
    const payload = makeEvent('agent.send', { kind: 'agent', name: 'a' }, { input: 'hi' });
    expect(validateIpcMessage({ type: 'event', from: 'a', to: 'b', payload }).ok).toBe(true);
    expect(validateIpcMessage({ type: 'delegate', from: 'a', to: 'b', payload }).ok).toBe(false);
  });

  test('an event payload must be a well-formed AgentEvent; problems name the field', () => {
    const result = validateIpcMessage({ type: 'event', from: 'a', to: 'b', payload: { id: 'x', type: 't', createdAt: 'now', source: { kind: 'martian', name: 'a' } } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.join('\n')).toContain('/payload/source/kind');
  });

  test('shutdown needs gracePeriodMs and a known reason', () => {
    expect(validateIpcMessage({ type: 'shutdown', from: 'orchestrator', to: 'a', payload: { gracePeriodMs: 10, reason: 'restart' } }).ok).toBe(true);
    expect(validateIpcMessage({ type: 'shutdown', from: 'orchestrator', to: 'a', payload: { gracePeriodMs: -1, reason: 'restart' } }).ok).toBe(false);
    expect(validateIpcMessage({ type: 'shutdown', from: 'orchestrator', to: 'a', payload: { gracePeriodMs: 10, reason: 'bored' } }).ok).toBe(false);
  });

  test('garbage is rejected, never thrown', () => {
    for (const garbage of [null, 42, 'text', [], { type: 'event' }, { type: 'event', from: '', to: 'b', payload: {} }]) {
      expect(validateIpcMessage(garbage).ok).toBe(false);
    }
  });

  test('trace ids must be 32 hex chars', () => {
    const payload = makeEvent('x', { kind: 'agent', name: 'a' }, { traceId: 'trace-123' });
    expect(validateIpcMessage({ type: 'event', from: 'a', to: 'b', payload }).ok).toBe(false);
  });

  test('runtime events are checked for their base fields', () => {
    const base = { timestamp: 't', agentName: 'a', instanceKey: 'k', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    expect(validateRuntimeEvent({ ...base, type: 'turn.started', turnId: 't1' }).ok).toBe(true);
    expect(validateRuntimeEvent({ ...base, type: 'turn.exploded' }).ok).toBe(false);
  });
});

describe('responses and call chains (SPEC.md §2.6)', () => {
  test('a reply event round-trips its outcome through metadata.inReplyTo', () => {
    const reply = makeReplyEvent('corr_1', { kind: 'agent', name: 'b' }, { status: 'ok', output: 'done', turnId: 't1' });
    expect(reply.metadata?.inReplyTo).toBe('corr_1');
    expect(replyOutcomeOf(reply)).toMatchObject({ status: 'ok', output: 'done', turnId: 't1' });
    const timeout = makeReplyEvent('corr_2', { kind: 'agent', name: 'orchestrator' }, errorOutcome('AGENT_REQUEST_TIMEOUT', 'late'));
    expect(replyOutcomeOf(timeout)).toMatchObject({ status: 'timeout', error: { code: 'AGENT_REQUEST_TIMEOUT', category: 'system', message: 'late' } });
  });

  test('a reply whose metadata does not match the reply schema is read as IPC_DELIVERY_FAILED, never trusted', () => {
    const forged = makeReplyEvent('corr_3', { kind: 'agent', name: 'b' }, { status: 'ok', output: 'x' });
    if (forged.metadata) forged.metadata.error = { code: 'lowercase is not a code', message: 1 };
    expect(replyOutcomeOf(forged)).toMatchObject({ status: 'error', error: { code: 'IPC_DELIVERY_FAILED' } });
  });

  test('a target already on the call chain is a cycle (nodes are agent:instance)', () => {
    expect(extendCallChain(['a:1', 'b:1'], 'a:1')).toEqual({ ok: false, cycle: ['a:1', 'b:1', 'a:1'] });
    expect(extendCallChain(['a:1', 'b:1'], 'a:2')).toEqual({ ok: true, chain: ['a:1', 'b:1', 'a:2'] });
    expect(callChainOf(makeEvent('x', { kind: 'agent', name: 'a' }, { metadata: { __callChain: ['a:1', 7] } }))).toEqual(['a:1']);
  });
});
