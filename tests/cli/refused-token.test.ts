/**
 * A daemon that answers with an error: commands print its code and message (one shared formatter),
 * and a refused token says where the CLI took it from — GOONDAN_API_TOKEN, which overrides the
 * state root's token file, or that file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiTokenPath } from '../../shared/state-paths.ts';
import { REPO_ROOT, sharedDaemon } from '../e2e/daemon-harness.ts';
import { goondan } from './goondan-cli.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));
const COMMANDS = [['ps'], ['send', 'hi'], ['restart'], ['instance', 'delete', 'k'], ['studio']];

let elsewhere = '';
beforeAll(() => {
  elsewhere = mkdtempSync(join(tmpdir(), 'goondan-token-'));
});
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

describe('a refused API token names where it came from', () => {
  for (const args of COMMANDS) {
    test(`goondan ${args.join(' ')} with a wrong GOONDAN_API_TOKEN: it overrides the token file; exit 1`, async () => {
      const run = await goondan([...args, '--state-root', daemon().stateRoot], { env: { GOONDAN_API_TOKEN: 'wrong' } });
      expect(run.code).toBe(1);
      expect(run.stderr).toStartWith(`goondan ${args.join(' ').replace(/ (hi|k)$/, '')}: E_HTTP_UNAUTHORIZED: the daemon at ${daemon().url} refused the API token from GOONDAN_API_TOKEN\n`);
      expect(run.stderr).toContain(`GOONDAN_API_TOKEN overrides ${apiTokenPath(daemon().stateRoot)}: unset it`);
      expect(run.stderr).not.toContain('unexpected response');
    });
  }

  test("another state root's token file (GOONDAN_API_URL names this daemon): that file is named", async () => {
    const stateRoot = join(elsewhere, 'other');
    mkdirSync(join(stateRoot, 'runtime'), { recursive: true });
    writeFileSync(apiTokenPath(stateRoot), 'not-this-daemons\n');
    const run = await goondan(['ps', '--state-root', stateRoot], { env: { GOONDAN_API_URL: daemon().url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`E_HTTP_UNAUTHORIZED: the daemon at ${daemon().url} refused the API token in ${apiTokenPath(stateRoot)}`);
    expect(run.stderr).toContain('Pass that --state-root, or set GOONDAN_API_TOKEN');
  });

  test('no token at all: says none was sent and where it was looked for', async () => {
    const stateRoot = join(elsewhere, 'none');
    const run = await goondan(['ps', '--state-root', stateRoot], { env: { GOONDAN_API_URL: daemon().url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`needs an API token and none was sent (GOONDAN_API_TOKEN is unset and ${apiTokenPath(stateRoot)} does not exist)`);
  });
});

describe('an empty GOONDAN_API_TOKEN is unset, as for the daemon', () => {
  test("the state root's token file is used", async () => {
    const run = await goondan(['ps', '--json', '--state-root', daemon().stateRoot], { env: { GOONDAN_API_TOKEN: '' } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe("other error answers print the daemon's code and message", () => {
  test('restart of an unknown agent: E_HTTP_UNKNOWN_AGENT, exit 2', async () => {
    const run = await goondan(['restart', '--agent', 'nobody', '--state-root', daemon().stateRoot]);
    expect(run.stderr).toContain("goondan restart: E_HTTP_UNKNOWN_AGENT: agent 'nobody' is not part of the running swarm");
    expect(run.code).toBe(2);
  });
});
