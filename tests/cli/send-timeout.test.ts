/**
 * `goondan send --timeout` that runs out (AGENT_REQUEST_TIMEOUT) ends the wait, not the event: the
 * CLI prints the event id, where to follow it (GET /v1/events/{id}, goondan logs --trace) and that
 * --no-wait exists. A turn held in the probe tool until a gate file exists makes the timeout certain.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, sharedDaemon, waitFor } from '../e2e/daemon-harness.ts';
import { goondan } from './goondan-cli.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));

let temp = '';
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'goondan-send-timeout-'));
});
afterAll(() => {
  // Release every held turn, so that the daemon drains at once.
  writeFileSync(join(temp, 'gate'), '');
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

async function sendHeld(instanceKey: string, ...flags: string[]) {
  return goondan(['send', `hold ${join(temp, 'gate')}`, '--timeout', '1000', '--instance', instanceKey, ...flags, '--state-root', daemon().stateRoot]);
}

function expectTimeoutHint(stderr: string): string {
  expect(stderr).toStartWith('goondan send: AGENT_REQUEST_TIMEOUT: ');
  const eventId = /GET \/v1\/events\/(evt_\S+) shows its state/.exec(stderr)?.[1];
  expect(eventId).toBeDefined();
  expect(stderr).toContain(`(event ${eventId}, trace `);
  expect(stderr).toMatch(/'goondan logs --trace [0-9a-f]{8}' shows its steps/);
  expect(stderr).toContain('--no-wait');
  return String(eventId);
}

describe('a reply that does not come within --timeout', () => {
  test('printed as text: the event id, where to follow it and --no-wait; exit 1', async () => {
    const run = await sendHeld('timeout-text');
    expect(run.code).toBe(1);
    expectTimeoutHint(run.stderr);
  });

  test('with --json: the same hint, and the event id is the one in the JSON; the event goes on and is answered', async () => {
    const run = await sendHeld('timeout-json', '--json');
    expect(run.code).toBe(1);
    const eventId = expectTimeoutHint(run.stderr);
    expect(JSON.parse(run.stdout)).toMatchObject({ eventId, error: { code: 'AGENT_REQUEST_TIMEOUT' } });
    writeFileSync(join(temp, 'gate'), '');
    const record = await waitFor(`GET /v1/events/${eventId} done`, async () => (await daemon().api(`/v1/events/${eventId}`)).json(), (body) => (body as { status?: string }).status === 'done');
    expect(record).toMatchObject({ reply: { status: 'ok', output: 'released' } });
  });
});
