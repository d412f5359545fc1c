/**
 * An instance key or agent name that is missing or empty is a usage error (exit 2), refused before
 * the daemon is asked: `instance delete` without KEY says a KEY is needed, and `--instance ""`
 * never silently means the default instance (send) or every instance (restart --fresh, logs).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goondan } from './goondan-cli.ts';

let stateRoot = '';
beforeAll(() => {
  stateRoot = mkdtempSync(join(tmpdir(), 'goondan-empty-keys-'));
});
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));

async function usageError(args: string[], message: string): Promise<void> {
  const run = await goondan([...args, '--state-root', stateRoot]);
  expect(run.stderr).toStartWith(`${message}\n\nUsage: goondan ${args[0]}`);
  expect(run.code).toBe(2);
}

describe('goondan instance delete needs a KEY', () => {
  test('without KEY: says a KEY is needed', async () => {
    await usageError(['instance', 'delete'], "goondan instance: delete needs the instance KEY (see 'goondan instance list')");
  });

  test('an empty KEY is refused', async () => {
    await usageError(['instance', 'delete', ''], 'goondan instance: the instance KEY must not be empty');
  });

  test('more than one KEY, or arguments after list, are named', async () => {
    await usageError(['instance', 'delete', 'a', 'b'], 'goondan instance: delete takes one KEY; unexpected: b');
    await usageError(['instance', 'list', 'x'], 'goondan instance: list takes no arguments; unexpected: x');
  });
});

describe('an empty --instance or --agent is refused, not taken for its absence', () => {
  test("send --instance '': not the instance 'default'", async () => {
    await usageError(['send', 'hi', '--instance', ''], "goondan send: --instance must not be empty (leave it out for the instance 'default')");
  });

  test("send --agent '': not the entry agent", async () => {
    await usageError(['send', 'hi', '--agent', ''], "goondan send: --agent must not be empty (leave it out for the swarm's entry agent)");
  });

  test("restart --fresh --instance '': not every instance's state", async () => {
    await usageError(['restart', '--fresh', '--yes', '--instance', ''], 'goondan restart: --instance must not be empty (leave it out for every instance)');
  });

  test("logs --instance '' and --agent '': not every instance or agent", async () => {
    await usageError(['logs', '--instance', ''], 'goondan logs: --instance must not be empty (leave it out for every instance)');
    await usageError(['logs', '--agent', ''], 'goondan logs: --agent must not be empty (leave it out for every agent)');
  });
});
