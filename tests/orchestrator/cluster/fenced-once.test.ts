/**
 * A partition whose state another node wrote is given up once. Every write of the partition still
 * under way when the first one was refused (the ack-time writes of several turns, a tool's write)
 * is refused too, and each called onFenced: the node dropped the lease and stopped the partition's
 * instances, and logged "giving up the partition", as many times as writes were refused. Now it is
 * told once per loss: once more only after the partition was taken up again and lost again, never
 * for a late refusal of a write from before. The replica and the core are stand-ins: only the
 * owner's bookkeeping is under test.
 */
import { describe, expect, test } from 'bun:test';
import pino from 'pino';
import type { ClusterInbox } from '../../../orchestrator/cluster/cluster-inbox.ts';
import { PartitionOwner } from '../../../orchestrator/cluster/partition-owner.ts';
import { StateFencedError, type StateReplica, SupersededWriteError } from '../../../orchestrator/cluster/state-replica.ts';
import type { OrchestratorCore } from '../../../orchestrator/daemon/orchestrator-core.ts';
import type { AgentId } from '../../../shared/ipc/agent-id.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';

/** One partition: every instance is in it. */
const PARTITION = 0;

interface Harness {
  owner: PartitionOwner;
  /** onFenced calls, in order. */
  fenced: number[];
  /** Refuses the oldest state write still waiting for its answer (by default: another node wrote the state). */
  refuseNext(error?: StateFencedError): Promise<void>;
  /** Delivers an event for the instance and ends its turn: its ack-time state write waits for refuseNext. */
  turn(instanceKey: string): Promise<void>;
}

function harness(): Harness {
  const writes: Array<(error: Error) => void> = [];
  const replica: Pick<StateReplica, 'restore' | 'sync' | 'forget'> = {
    restore: async () => {},
    sync: () => new Promise<void>((_, reject) => writes.push(reject)),
    forget: () => {},
  };
  const inbox: Pick<ClusterInbox, 'startPartition' | 'stopPulling' | 'dropUnfinished' | 'ack' | 'isInFlight'> = {
    startPartition: async () => {},
    stopPulling: () => {},
    dropUnfinished: () => 0,
    ack: () => {},
    isInFlight: () => false,
  };
  const core = {
    router: { deliverHere: () => {}, dropRemoteWaiters: () => {} },
    supervisor: { list: () => [], stop: async () => {} },
    delivery: { forget: () => {} },
  };
  const fenced: number[] = [];
  let seq = 0;
  const owner: PartitionOwner = new PartitionOwner({
    // Stand-ins with only what the owner calls here (the cluster's own types, narrowed).
    inbox: inbox as unknown as ClusterInbox,
    replica: replica as unknown as StateReplica,
    partitions: 1,
    logger: pino({ level: 'silent' }),
    gracePeriodMs: () => 0,
    // As the node does: the partition is lost.
    onFenced: (partition) => {
      fenced.push(partition);
      void owner.lose(partition);
    },
    pendingApprovals: () => [],
    deletedThrough: async () => 0,
    tellGivenUp: async () => {},
    outcomeHandedOff: async () => {},
  });
  owner.attach(core as unknown as OrchestratorCore);
  return {
    owner,
    fenced,
    refuseNext: async (error = new StateFencedError('another node wrote it')) => {
      writes.shift()?.(error);
      // The refusal's handlers run.
      await Bun.sleep(0);
    },
    turn: async (instanceKey) => {
      const target: AgentId = { agent: 'alpha', instanceKey };
      seq += 1;
      const event = { id: `evt_${instanceKey}_${seq}` } as unknown as AgentEvent;
      await owner.deliver({ target, from: 'http', kind: 'send', origin: 'n1', event }, PARTITION, seq);
      owner.settled(target, event.id);
    },
  };
}

describe('a partition whose state another node wrote', () => {
  test('is given up once however many of its writes were refused, once more only when lost again after being taken up again', async () => {
    const { owner, fenced, refuseNext, turn } = harness();
    await owner.acquire(PARTITION);
    // Three turns end at once: three ack-time writes under way.
    for (const key of ['k1', 'k2', 'k3']) await turn(key);

    for (let i = 0; i < 3; i++) await refuseNext();
    expect(fenced).toEqual([PARTITION]);

    // Taken up again and lost again: told again, once.
    await owner.acquire(PARTITION);
    for (const key of ['k1', 'k4']) await turn(key);
    await refuseNext();
    await refuseNext();
    expect(fenced).toEqual([PARTITION, PARTITION]);
  });

  test('a write refused late, from before the partition was lost and taken up again, does not give up the new tenure', async () => {
    const { owner, fenced, refuseNext, turn } = harness();
    await owner.acquire(PARTITION);
    await turn('k1');
    await turn('k2');
    await refuseNext();
    expect(fenced).toEqual([PARTITION]);

    // Taken up again while k2's write of the lost tenure still waits for its answer.
    await owner.acquire(PARTITION);
    await refuseNext();
    expect(fenced).toEqual([PARTITION]);

    await turn('k3');
    await refuseNext();
    expect(fenced).toEqual([PARTITION, PARTITION]);
  });

  test('a write refused as superseded (begun before its instance was restored again here) does not give the partition up', async () => {
    const { owner, fenced, refuseNext, turn } = harness();
    await owner.acquire(PARTITION);
    await turn('k1');
    await refuseNext(new SupersededWriteError('begun before the instance was restored again'));
    expect(fenced).toEqual([]);
  });
});
