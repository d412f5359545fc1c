/**
 * A one-shot `goondan run --input` that gets SIGTERM mid-turn drains and exits (it used to wait
 * for a reply that never came, alive after "orchestrator stopped").
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from '../e2e/daemon-harness.ts';
import { GOONDAN_BIN } from './goondan-cli.ts';


const work = mkdtempSync(join(tmpdir(), 'goondan-signal-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The turn takes far longer than the grace period, so the drain ends it and no reply comes.
const SLOW_BUNDLE = `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: slow }
spec:
  provider: mock
  model: slow
  options: { latencyMs: 600000, default: echo }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: a }
spec:
  modelConfig: { modelRef: Model/slow }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: slow }
spec:
  entryAgent: Agent/a
  agents: [Agent/a]
  policy: { shutdown: { gracePeriodSeconds: 1 } }
`;

describe('goondan run --input and signals', () => {
  test('SIGTERM during the turn: the run drains and exits 1, saying no reply came', async () => {
    const bundle = join(work, 'bundle');
    const stateRoot = join(work, 'state');
    await Bun.write(join(bundle, 'goondan.yaml'), SLOW_BUNDLE);
    const proc = Bun.spawn([GOONDAN_BIN, 'run', bundle, '--input', 'hello', '--port', '0', '--state-root', stateRoot], {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: work },
    });
    const log = join(stateRoot, 'runtime', 'logs', 'goondan.log');
    const turnRunning = () => existsSync(log) && readFileSync(log, 'utf8').includes('"msg":"process ready"');
    try {
      await waitUntil(turnRunning, `the agent to be ready (${log})`);
      proc.kill('SIGTERM');
      const code = await Promise.race([proc.exited, Bun.sleep(60_000).then(() => 'still running 60 s after SIGTERM')]);
      expect(code).toBe(1);
      // Either the drain answers the caller (DAEMON_STOPPING) or the run notices the stop first.
      expect(await new Response(proc.stderr).text()).toMatch(/goondan run: (stopped by a signal before the reply arrived|DAEMON_STOPPING)/);
      expect(readFileSync(log, 'utf8')).toContain('"msg":"orchestrator stopped"');
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
});
