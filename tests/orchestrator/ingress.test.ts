import { describe, expect, test } from 'bun:test';
import { routeIngress } from '../../orchestrator/routing/ingress.ts';

const input = { name: 'message', properties: { chat_id: '42', channel: 'ops' }, instanceKey: 'conn-key' };

describe('connector ingress (SPEC.md §2.4, §6)', () => {
  test('without rules every event goes to the entry agent with the connector key', () => {
    expect(routeIngress([], 'entry', input)).toEqual({ agent: 'entry', instanceKey: 'conn-key' });
  });

  test('the first matching rule wins; event and properties are ANDed and compared as strings', () => {
    const rules = [
      { match: { event: 'message', properties: { chat_id: 7 } }, route: { agent: 'never' } },
      { match: { event: 'message', properties: { chat_id: 42 } }, route: { agent: 'first' } },
      { route: { agent: 'catch-all' } },
    ];
    expect(routeIngress(rules, 'entry', input)).toMatchObject({ agent: 'first', ruleIndex: 1 });
    expect(routeIngress(rules, 'entry', { ...input, name: 'other' })).toMatchObject({ agent: 'catch-all', ruleIndex: 2 });
  });

  test('instanceKey precedence: route.instanceKey > prefix + property > connector key', () => {
    expect(routeIngress([{ route: { instanceKey: 'fixed', instanceKeyProperty: 'chat_id' } }], 'e', input)?.instanceKey).toBe('fixed');
    expect(routeIngress([{ route: { instanceKeyProperty: 'chat_id', instanceKeyPrefix: 'tg:' } }], 'e', input)?.instanceKey).toBe('tg:42');
    expect(routeIngress([{ route: { instanceKeyProperty: 'missing' } }], 'e', input)?.instanceKey).toBe('conn-key');
  });

  test('no matching rule means no route (the event is dropped, not misrouted)', () => {
    expect(routeIngress([{ match: { event: 'nope' }, route: {} }], 'entry', input)).toBeUndefined();
  });

  test('a route without agent targets the entry agent', () => {
    expect(routeIngress([{ route: {} }], 'entry', input)?.agent).toBe('entry');
  });
});
