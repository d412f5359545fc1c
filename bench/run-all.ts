#!/usr/bin/env bun
/** Runs every benchmark in turn (`npm run bench`); each prints its own table and JSON line. */
import { join } from 'node:path';

const BENCHES = ['cli.ts', 'config-load.ts', 'turn-overhead.ts', 'model-call.ts', 'durability.ts', 'pipeline-overhead.ts', 'policy-parse.ts', 'daemon.ts', 'agent-rss.ts', 'cluster.ts', 'sandbox.ts', 'studio-first-paint.ts'];

let failed = 0;
for (const bench of BENCHES) {
  console.log(`\n── ${bench} ${'─'.repeat(Math.max(0, 60 - bench.length))}`);
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, bench)], {
    stdout: 'inherit',
    stderr: 'inherit',
    env: { ...process.env, GOONDAN_LOG_LEVEL: 'warn' },
  });
  if ((await proc.exited) !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
