/**
 * A JetStream stream every node may be first to need: looked up, created if missing, and a create
 * that lost the race to another node's is no failure (the stream is there).
 */
import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';

export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await jsm.streams.info(config.name);
  } catch {
    await jsm.streams.add(config).catch(async (error: unknown) => {
      // Another node created it between our look and our add.
      await jsm.streams.info(config.name).catch(() => Promise.reject(error));
    });
  }
}
