/**
 * RecentSet: a bounded memory of handled ids (a step's usage counted once, a provider's
 * redelivered update run once) that forgets the oldest first, without walking the set to find it.
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { RecentMap } from '../../shared/recent-map.ts';
import { RecentSet } from '../../shared/recent-set.ts';
import { RecentIds } from '../../bundles/base/connectors/common/recent-ids.ts';

describe('RecentSet', () => {
  test('a repeat is refused while remembered; beyond the capacity the oldest is forgotten first', () => {
    const recent = new RecentSet<string>(3);
    expect(['a', 'b', 'c'].map((id) => recent.add(id))).toEqual([true, true, true]);
    expect(recent.add('b')).toBe(false);
    expect(recent.add('d')).toBe(true);
    expect(recent.size).toBe(3);
    expect(recent.has('a')).toBe(false);
    expect(['b', 'c', 'd'].every((id) => recent.has(id))).toBe(true);
    // A refused repeat does not count as new: 'b' is still the oldest but one.
    expect(recent.add('e')).toBe(true);
    expect(recent.has('b')).toBe(false);
    expect(recent.add('a')).toBe(true);
  });

  describe('at capacity', () => {
    const spies: Array<{ mockRestore(): void }> = [];
    afterEach(() => {
      for (const spy of spies.splice(0)) spy.mockRestore();
    });

    test('forgetting the oldest never iterates the set (its iterator walks every deleted member: ~15 µs a call at 10,000)', () => {
      const recent = new RecentSet<number>(1000);
      for (let i = 0; i < 1000; i++) recent.add(i);
      const values = spyOn(Set.prototype, 'values');
      const keys = spyOn(Set.prototype, 'keys');
      spies.push(values, keys);
      for (let i = 1000; i < 3000; i++) recent.add(i);
      expect(values).not.toHaveBeenCalled();
      expect(keys).not.toHaveBeenCalled();
      expect(recent.size).toBe(1000);
      expect(recent.has(1999)).toBe(false);
      expect(recent.has(2000)).toBe(true);
    });
  });

  test('a capacity that is not a positive integer is refused by name', () => {
    expect(() => new RecentSet(0)).toThrow('RecentSet capacity must be a positive integer, got 0');
  });

  test('RecentIds (connectors) answers firstTime from it', () => {
    const ids = new RecentIds(2);
    expect([ids.firstTime('u1'), ids.firstTime('u1'), ids.firstTime('u2'), ids.firstTime('u3'), ids.firstTime('u1')]).toEqual([true, false, true, true, true]);
  });
});

describe('RecentMap', () => {
  test('holds the newest entries up to its capacity; setting a held key replaces its value and keeps its age', () => {
    const recent = new RecentMap<string, number>(2);
    recent.set('a', 1);
    recent.set('b', 2);
    recent.set('a', 10);
    expect([recent.get('a'), recent.get('b'), recent.size]).toEqual([10, 2, 2]);
    // 'a' is still the oldest: it goes first.
    recent.set('c', 3);
    expect([recent.get('a'), recent.get('b'), recent.get('c'), recent.size]).toEqual([undefined, 2, 3, 2]);
    recent.set('d', 4);
    expect([recent.get('b'), recent.get('c'), recent.get('d')]).toEqual([undefined, 3, 4]);
  });

  test('refuses a capacity that is not a positive integer', () => {
    expect(() => new RecentMap(0)).toThrow(RangeError);
  });
});
