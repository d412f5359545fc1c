/**
 * The floor of the A→B→A row of bench/daemon.ts: the same four IPC hops (A → parent → B → parent →
 * A) between bare Bun children, the parent relaying by address, B echoing at once — no validation,
 * inbox, turn or tool call. Paced like the bench's agents__request: batches after a pause, the
 * round trips of a batch a moment apart, so each hop wakes a process that was asleep, as it does
 * there (on this 2-vCPU VM an idle vCPU halts, and waking it is most of a hop's cost).
 */
import { join } from 'node:path';
import { median, percentile } from './stats.ts';

const ASKER = join(import.meta.dir, 'fixtures/relay-asker.ts');
const ECHO = join(import.meta.dir, 'fixtures/bare-child.ts');

export interface RelayFloor {
  medianMs: number;
  p95Ms: number;
  firstMs: number;
  restMs: number;
}

export interface RelayPacing {
  batches: number;
  perBatch: number;
  pauseMs: number;
  gapMs: number;
}

interface Done {
  type: 'done';
  first: number[];
  rest: number[];
}

export async function ipcRelayFloor(pacing: RelayPacing): Promise<RelayFloor> {
  const spawn = (entry: string, ipc: (message: { type?: string; to?: string }) => void) =>
    Bun.spawn([process.execPath, entry], { serialization: 'json', stdio: ['ignore', 'ignore', 'inherit'], ipc });
  const { promise: finished, resolve } = Promise.withResolvers<Done>();
  let ready = 0;
  const started = () => {
    if (++ready === 2) asker.send({ type: 'go', ...pacing });
  };
  const echo = spawn(ECHO, (message) => (message.type === 'ready' ? started() : asker.send(message)));
  const asker = spawn(ASKER, (message) => {
    if (message.type === 'ready') started();
    else if (message.type === 'done') resolve(message as Done);
    else if (message.to === 'B') echo.send(message);
  });
  try {
    const { first, rest } = await finished;
    const all = [...first, ...rest];
    return { medianMs: median(all), p95Ms: percentile(all, 95), firstMs: median(first), restMs: median(rest) };
  } finally {
    asker.kill();
    echo.kill();
  }
}
