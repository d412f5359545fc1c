/**
 * The HTTP endpoints of the built-in webhook-style connectors, over real HTTP: body size bounds
 * (a chunked upload is not buffered whole), which secrets and settings they need, which
 * properties a request body may set, and replays of signed requests.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import github from '../../bundles/base/connectors/github/index.ts';
import webhook from '../../bundles/base/connectors/webhook/index.ts';
import { type RunningConnector, postEndlessChunked, startConnector, started } from './connector-http-harness.ts';

const running: RunningConnector[] = [];
afterEach(async () => {
  for (const connector of running.splice(0)) await connector.stop();
});
async function run(...args: Parameters<typeof startConnector>): Promise<RunningConnector> {
  const connector = started(await startConnector(...args));
  running.push(connector);
  return connector;
}

describe('request bodies are bounded while they are read', () => {
  test('webhook: a chunked upload past 1 MB is answered 413 without waiting for its end', async () => {
    const hook = await run(webhook, { port: '0', path: '/in' }, { WEBHOOK_SECRET: 's' });
    expect(await postEndlessChunked(hook.url, 2_000_000, 5_000)).toBe(413);
    expect(hook.events).toEqual([]);
  });

  test('webhook-style connectors (github): the same for a chunked upload', async () => {
    const hooks = await run(github, { port: '0', verify: 'false' });
    expect(await postEndlessChunked(hooks.url, 2_000_000, 5_000)).toBe(413);
    expect(hooks.events).toEqual([]);
  });
});
