/** Swarm.spec.policy.interAgent: which instance keys an agent reaches, and the hop limit (shared/inter-agent-scope.ts). */
import { describe, expect, test } from 'bun:test';
import { DEFAULT_INTER_AGENT_PLAN, inScope, interAgentRefusal } from '../../shared/inter-agent-scope.ts';

const scoped = { ...DEFAULT_INTER_AGENT_PLAN, sharedInstanceKeys: ['lobby'] };

describe('scoped instance keys', () => {
  test('own key, keys under and above it, and shared keys are in scope', () => {
    expect(['tg:1', 'tg:1/helper', 'tg:1/helper/deeper', 'lobby'].filter((key) => inScope(scoped, 'tg:1', key))).toHaveLength(4);
    expect(inScope(scoped, 'tg:1/helper', 'tg:1')).toBe(true);
  });

  test('a key that merely starts with the same characters is another tenant', () => {
    expect(['tg:12', 'tg:1x/helper', 'tg:', 'lobby/side', 'other'].filter((key) => inScope(scoped, 'tg:1', key))).toEqual([]);
    expect(inScope(scoped, 'tg:12', 'tg:1')).toBe(false);
  });

  test('instanceKeys: any reaches every key', () => {
    expect(inScope({ ...scoped, instanceKeys: 'any' }, 'tg:1', 'tg:2')).toBe(true);
  });
});

describe('refusals', () => {
  test('out of scope names the key; past maxHops names the count; at the limit it goes', () => {
    const caller = { agent: 'alpha', instanceKey: 'tg:1' };
    expect(interAgentRefusal(scoped, caller, 'tg:2', 1)).toMatchObject({ code: 'INSTANCE_OUT_OF_SCOPE', details: { instanceKey: 'tg:2' } });
    expect(interAgentRefusal(scoped, caller, 'tg:1', 33)).toMatchObject({ code: 'HOP_LIMIT_EXCEEDED', details: { hops: 33, maxHops: 32 } });
    expect(interAgentRefusal(scoped, caller, 'tg:1', 32)).toBeUndefined();
    expect(interAgentRefusal(scoped, caller, 'tg:1/x')).toBeUndefined();
  });
});
