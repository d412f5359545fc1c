/**
 * The start of a cluster e2e test file: a real nats-server and a temporary directory (with the
 * counter file the fixture's tool appends to) per test, and cleanups run after each test.
 */
import { afterEach } from 'bun:test';
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
