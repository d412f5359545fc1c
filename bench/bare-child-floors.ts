/**
 * Floors of bench/daemon.ts measured on a bare Bun child (bench/fixtures/bare-child.ts, JSON IPC as
 * the daemon spawns its children): spawn → its first IPC message, its idle RSS, and a raw IPC round
 * trip back to back.
 */
import { join } from 'node:path';
import { processRssBytes } from '../orchestrator/process/process-rss.ts';
import { fullOrSmoke } from './smoke.ts';
import { median } from './stats.ts';

const BARE = join(import.meta.dir, 'fixtures/bare-child.ts');
const ROUND_TRIPS = fullOrSmoke(2000, 2);
/** Before reading a bare child's RSS: its start-up allocations settle. */
const RSS_SETTLE_MS = fullOrSmoke(100, 20);

/** Floors: bare child spawn → first IPC message (median of `spawns`), raw round trip, and its RSS. */
export async function bareChildFloors(spawns: number): Promise<{ spawnMs: number; roundTripUs: number; rssBytes: number }> {
  const spawnMs: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < spawns; i++) {
    const t0 = performance.now();
    let child: ReturnType<typeof Bun.spawn> | undefined;
    await new Promise<void>((resolve) => {
      child = Bun.spawn([process.execPath, BARE], { serialization: 'json', stdio: ['ignore', 'ignore', 'inherit'], ipc: () => resolve() });
    });
    spawnMs.push(performance.now() - t0);
    await Bun.sleep(RSS_SETTLE_MS);
    if (child?.pid) rss.push((await processRssBytes(child.pid)) ?? 0);
    child?.kill();
  }
  // Raw round trip.
  let roundTripUs = 0;
  await new Promise<void>((resolve) => {
    let n = 0;
    let t0 = 0;
    const child = Bun.spawn([process.execPath, BARE], {
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit'],
      ipc: (message: { type?: string }, sub) => {
        if (message.type === 'ready') {
          t0 = performance.now();
          sub.send({ type: 'ping', n });
          return;
        }
        n += 1;
        if (n < ROUND_TRIPS) sub.send({ type: 'ping', n });
        else {
          roundTripUs = ((performance.now() - t0) / ROUND_TRIPS) * 1000;
          child.kill();
          resolve();
        }
      },
    });
  });
  return { spawnMs: median(spawnMs), roundTripUs, rssBytes: median(rss) };
}
