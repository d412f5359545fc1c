/**
 * Cluster mode: which connector process may hold its provider connection alone (a poller). The
 * node holding the connection's partition grants it; a node that takes the partition up grants the
 * ones waiting; a node that gives it up restarts the ones it granted (they ask again).
 */
import { describe, expect, test } from 'bun:test';
import pino from 'pino';
import { type ConnectorProcess, ExclusiveConnections } from '../../../orchestrator/cluster/exclusive-connections.ts';

interface FakeConnector extends ConnectorProcess {
  alive: boolean;
}

function setUp() {
  const held = new Set<number>();
  const restarted: string[] = [];
  const exclusive = new ExclusiveConnections<FakeConnector>({
    partitions: 32,
    holds: (partition) => held.has(partition),
    restart: (proc) => restarted.push(proc.name),
    logger: pino({ level: 'silent' }),
  });
  return { held, restarted, exclusive };
}

/** Resolves to whether `promise` settled by the end of the current microtasks. */
async function settledNow(promise: Promise<void>): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('exclusive connections', () => {
  test('granted at once by the node holding the connection’s partition; elsewhere it waits until that node takes the partition up', async () => {
    const { held, exclusive } = setUp();
    const tg: FakeConnector = { name: 'tg', alive: true };
    const partition = exclusive.partitionOf('tg');
    const waiting = exclusive.request(tg);
    expect(await settledNow(waiting)).toBe(false);
    exclusive.acquired((partition + 1) % 32);
    expect(await settledNow(waiting)).toBe(false);
    held.add(partition);
    exclusive.acquired(partition);
    expect(await settledNow(waiting)).toBe(true);
    expect(await settledNow(exclusive.request({ name: 'tg', alive: true }))).toBe(true);
  });

  test('giving the partition up restarts the connectors it granted, and only those, and only live ones', async () => {
    const { held, restarted, exclusive } = setUp();
    const tg: FakeConnector = { name: 'tg', alive: true };
    const gone: FakeConnector = { name: 'tg', alive: true };
    held.add(exclusive.partitionOf('tg'));
    await exclusive.request(tg);
    await exclusive.request(gone);
    gone.alive = false;
    const other = [...Array(100).keys()].map((i) => `conn-${i}`).find((name) => exclusive.partitionOf(name) !== exclusive.partitionOf('tg')) ?? '';
    held.add(exclusive.partitionOf(other));
    await exclusive.request({ name: other, alive: true });

    exclusive.released(exclusive.partitionOf('tg'));
    expect(restarted).toEqual(['tg']);
    // Given up once: a second release restarts nothing more.
    exclusive.released(exclusive.partitionOf('tg'));
    expect(restarted).toEqual(['tg']);
  });

  test('a connector that died while it waited is not granted when the partition comes', async () => {
    const { held, restarted, exclusive } = setUp();
    const tg: FakeConnector = { name: 'tg', alive: true };
    const waiting = exclusive.request(tg);
    tg.alive = false;
    held.add(exclusive.partitionOf('tg'));
    exclusive.acquired(exclusive.partitionOf('tg'));
    expect(await settledNow(waiting)).toBe(false);
    exclusive.released(exclusive.partitionOf('tg'));
    expect(restarted).toEqual([]);
  });
});
