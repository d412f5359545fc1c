/**
 * Which partition an instance lives in, and which live node owns a partition: rendezvous
 * (highest-random-weight) hashing, so a node joining or leaving moves only its own share.
 * FNV-1a, not a runtime hasher: every node, whatever its Bun version, must compute the same.
 */
import type { AgentId } from '../../shared/ipc/agent-id.ts';

export function partitionOf(id: AgentId, partitions: number): number {
  return mix(fnv1a(`${id.agent}\u0000${id.instanceKey}`)) % partitions;
}

/** The member with the highest weight for `partition` (ties by name, so all nodes agree). */
export function rendezvousOwner(partition: number, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const member of members) {
    const weight = mix(fnv1a(`${member}/${partition}`));
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && member < best)) {
      best = member;
      bestWeight = weight;
    }
  }
  return best;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** FNV's low bits are weak for short similar keys; a finaliser (murmur3 fmix32) spreads them. */
function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
