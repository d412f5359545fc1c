/**
 * The start of a cluster e2e test file: a real nats-server and a temporary directory (with the
 * counter file the fixture's tool appends to) per test, and cleanups run after each test — or one
 * of each for the whole file (`sharedClusterHarness`), for tests that disrupt neither.
 */
import { afterAll, afterEach } from 'bun:test';
import { join } from 'node:path';
import { type NatsServer, natsAndTempDir } from '../helpers/nats-server.ts';

export interface ClusterHarness {
  nats: NatsServer;
  counterFile: string;
}

export type Cleanup = () => Promise<void> | void;

export function clusterHarnesses(prefix: string): { cleanups: Cleanup[]; harness(): Promise<ClusterHarness> } {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    async harness() {
      const { nats, dir } = await natsAndTempDir(cleanups, prefix);
      return { nats, counterFile: join(dir, 'counter.jsonl') };
    },
  };
}

/**
 * One nats-server and temporary directory for a whole test file, for tests that stop neither NATS
 * nor the nodes they share: started by the first test that asks (its start counts there), and
 * gone, with whatever was pushed to `cleanups`, after the file's tests. A test that stops or
 * restarts NATS takes its own (`clusterHarnesses`).
 */
export function sharedClusterHarness(prefix: string): { cleanups: Cleanup[]; harness(): Promise<ClusterHarness> } {
  const cleanups: Cleanup[] = [];
  let started: Promise<ClusterHarness> | undefined;
  // Hooks do not get npm test's --timeout: stopping NATS on a loaded machine may take its 10 s grace.
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  }, 60_000);
  return {
    cleanups,
    harness() {
      started ??= natsAndTempDir(cleanups, prefix).then(
        ({ nats, dir }) => ({ nats, counterFile: join(dir, 'counter.jsonl') }),
        (error: unknown) => {
          started = undefined;
          throw error;
        },
      );
      return started;
    },
  };
}
