/**
 * GOONDAN_CACHE_DIR: a daemon that cannot write to its package directory (a container image's
 * user, systemd's ProtectSystem=strict) keeps what it would build there — the agent entry bundle,
 * the schema validators, their bytecode, the built-in modules' builds — in a directory it can
 * write to, and so do the agents it starts: no agent starts from the sources or compiles a
 * validator again after the first.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE_MODULE_BUILDS_ENV } from '../../shared/base-module-builds.ts';
import { privatePackage } from '../helpers/private-package.ts';
import { DAEMON_TEST_MS, REPO_ROOT, daemonsStoppedAfterAll, startDaemon } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemons = daemonsStoppedAfterAll();
const cacheDir = mkdtempSync(join(tmpdir(), 'goondan-cache-dir-'));
const packageCopy = privatePackage();
afterAll(() => {
  rmSync(cacheDir, { recursive: true, force: true });
  packageCopy.remove();
});

const names = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);


describe('GOONDAN_CACHE_DIR', () => {
  test(
    'the daemon and its agents build and find their caches there, and leave the package’s alone',
    async () => {
      const daemon = await startDaemon(BUNDLE, { bin: packageCopy.bin, env: { GOONDAN_CACHE_DIR: cacheDir } });
      daemons.push(daemon);
      const { status, body } = await daemon.send({ input: 'hello', instanceKey: 'moved-caches' });
      expect({ status, output: body.output }).toEqual({ status: 200, output: 'alpha got: hello' });

      const row = (await daemon.processes()).find((p) => p.agent === 'alpha' && p.instanceKey === 'moved-caches');
      if (typeof row?.pid !== 'number') throw new Error(`no running process for the instance: ${JSON.stringify(row)}`);
      const command = readFileSync(`/proc/${row.pid}/cmdline`, 'utf8').split('\0');
      expect(command[1]?.startsWith(join(cacheDir, 'agent', 'agent-'))).toBe(true);
      const environ = readFileSync(`/proc/${row.pid}/environ`, 'utf8').split('\0');
      const moduleBuilds = environ.find((entry) => entry.startsWith(`${BASE_MODULE_BUILDS_ENV}=`))?.slice(BASE_MODULE_BUILDS_ENV.length + 1);
      expect(moduleBuilds?.startsWith(join(cacheDir, 'base-modules', ''))).toBe(true);

      // The assignment's validator is made by agents only (the daemon never parses an assignment).
      const validators = join(cacheDir, 'validators');
      const sources = names(validators).filter((name) => name.endsWith('.cjs'));
      expect(sources.some((name) => readFileSync(join(validators, name), 'utf8').includes('"required":["role","agent","instanceKey","stateRoot","agentPlan","swarmPlan"]'))).toBe(true);

      // Built in the background once the daemon is ready, after the validators' bytecode.
      await daemon.waitForLog('the built-in modules’ builds', (line) => typeof line.msg === 'string' && line.msg.startsWith('built-in modules’ bytecode built'));
      expect(await daemon.stop()).toBe(0);
      const builds = names(validators).filter((name) => name.startsWith('bytecode-'));
      expect(builds).toHaveLength(1);
      expect(names(join(validators, builds[0]!)).filter((name) => name.endsWith('.js')).length).toBeGreaterThan(0);
      // Nothing at all in the package's own cache (node_modules/.cache).
      expect(names(join(packageCopy.root, 'node_modules', '.cache'))).toEqual([]);
      expect(existsSync(join(moduleBuilds ?? '', 'tools', 'agents', 'index.js'))).toBe(true);
    },
    DAEMON_TEST_MS,
  );
});
