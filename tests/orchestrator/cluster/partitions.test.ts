/**
 * Issue 15: instances hash into partitions, and partitions into live nodes, the same way on
 * every node; ownership is spread (never all on one node) and a node joining or leaving moves
 * only its own share.
 */
import { describe, expect, test } from 'bun:test';
import { partitionOf, rendezvousOwner } from '../../../orchestrator/cluster/partitions.ts';

const PARTITIONS = 32;

function assignment(members: string[]): Array<string | undefined> {
  return Array.from({ length: PARTITIONS }, (_, p) => rendezvousOwner(p, members));
}

describe('partitions of instances', () => {
  test('an instance always lands in the same partition, and keys spread over all of them', () => {
    expect(partitionOf({ agent: 'alpha', instanceKey: 'k1' }, PARTITIONS)).toBe(partitionOf({ agent: 'alpha', instanceKey: 'k1' }, PARTITIONS));
    const used = new Set(Array.from({ length: 2_000 }, (_, i) => partitionOf({ agent: 'writer', instanceKey: `user-${i}` }, PARTITIONS)));
    expect(used.size).toBe(PARTITIONS);
  });

  test('agent and key are not confused (alpha/k1 is not alph/ak1)', () => {
    const pairs = Array.from({ length: 200 }, (_, i) => [partitionOf({ agent: 'alpha', instanceKey: `k${i}` }, 1 << 20), partitionOf({ agent: 'alph', instanceKey: `ak${i}` }, 1 << 20)]);
    expect(pairs.filter(([a, b]) => a === b).length).toBeLessThan(3);
  });
});

describe('rendezvous ownership over live nodes', () => {
  test('three nodes each own a share, and every node computes the same owners whatever the member order', () => {
    const owners = assignment(['n1', 'n2', 'n3']);
    for (const node of ['n1', 'n2', 'n3']) expect(owners.filter((o) => o === node).length).toBeGreaterThanOrEqual(5);
    expect(assignment(['n3', 'n1', 'n2'])).toEqual(owners);
  });

  test('a node leaving moves only its own partitions; one joining takes only partitions to itself', () => {
    const three = assignment(['n1', 'n2', 'n3']);
    const two = assignment(['n1', 'n3']);
    three.forEach((owner, p) => {
      if (owner !== 'n2') expect(two[p]).toBe(owner);
    });
    const four = assignment(['n1', 'n2', 'n3', 'n4']);
    three.forEach((owner, p) => {
      if (four[p] !== 'n4') expect(four[p]).toBe(owner);
    });
    expect(four.filter((o) => o === 'n4').length).toBeGreaterThan(0);
  });

  test('no members: no owner', () => {
    expect(rendezvousOwner(0, [])).toBeUndefined();
  });
});
