/**
 * A Tool export needs only its name (tool spec 6.1: `description` and `parameters` are optional):
 * a bundle whose export has neither passes `goondan validate`, and its agent starts and calls it.
 * Before, the agent process refused its assignment (the plan schema wanted a description) and every
 * request waited out the 30 s start timeout.
 */
import { afterAll, expect, test } from 'bun:test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Daemon, GOONDAN_BIN, REPO_ROOT, startDaemon, tempStateRoot } from './daemon-harness.ts';

const daemons: Daemon[] = [];
afterAll(async () => {
  for (const d of daemons) {
    await d.stop('SIGKILL').catch(() => 0);
    d.cleanup();
  }
});

test('an export with a name alone validates, and its agent starts and calls it', async () => {
  const dir = tempStateRoot();
  const bundle = join(dir, 'bundle');
  cpSync(join(REPO_ROOT, 'tests/fixtures/e2e/cluster'), bundle, { recursive: true });
  const yaml = readFileSync(join(bundle, 'goondan.yaml'), 'utf8');
  const bare = yaml.replace('      description: Counts one execution (not idempotent).\n      parameters: { type: object, properties: { label: { type: string }, ms: { type: number } } }\n', '');
  expect(bare).not.toBe(yaml);
  writeFileSync(join(bundle, 'goondan.yaml'), bare);

  const validate = Bun.spawn([GOONDAN_BIN, 'validate', bundle], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  expect({ code: await validate.exited, err: await new Response(validate.stderr).text() }).toEqual({ code: 0, err: '' });

  const counter = join(dir, 'counter.jsonl');
  const daemon = await startDaemon(bundle, { env: { GOONDAN_TEST_COUNTER_FILE: counter } });
  daemons.push(daemon);
  const reply = await daemon.send({ agent: 'alpha', instanceKey: 'k', input: 'count bare' });
  expect(reply).toMatchObject({ status: 200, body: { status: 'ok', output: 'done bare' } });
  expect(readFileSync(counter, 'utf8')).toContain('"label":"bare"');
});
