import { describe, expect, test } from 'bun:test';
import { layoutSwarm } from '../../studio/src/model/swarm-layout.ts';

const places = (input: Parameters<typeof layoutSwarm>[0]) => layoutSwarm(input).map((p) => `${p.kind}:${p.id}@${p.column},${p.row}`);

describe('the swarm graph layout', () => {
  test('connections first, then agents by call depth from the entry agent', () => {
    expect(
      places({
        entryAgent: 'writer',
        agents: ['writer', 'reviewer', 'editor'],
        connections: [{ name: 'tg', agents: ['writer'] }],
        calls: [
          { from: 'writer', to: 'reviewer' },
          { from: 'reviewer', to: 'editor' },
        ],
      }),
    ).toEqual(['connection:tg@0,0', 'agent:writer@1,0', 'agent:reviewer@2,0', 'agent:editor@3,0']);
  });

  test('agents no call reached share the column after the entry agent; agents seen only in traffic are drawn too', () => {
    expect(places({ entryAgent: 'a', agents: ['a', 'b', 'c'], connections: [], calls: [{ from: 'x', to: 'y' }] })).toEqual([
      'agent:a@0,0',
      'agent:b@1,0',
      'agent:c@1,1',
      'agent:x@1,2',
      'agent:y@1,3',
    ]);
  });

  test('a call back to the caller does not move it', () => {
    expect(places({ entryAgent: 'a', agents: ['a', 'b'], connections: [], calls: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }] })).toEqual(['agent:a@0,0', 'agent:b@1,0']);
  });
});
