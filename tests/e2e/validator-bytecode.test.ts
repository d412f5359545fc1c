/**
 * A daemon builds the bytecode of the cached validators once it is ready (issue 12: a warm spare
 * spent ~16 ms of its ~50 ms of CPU parsing and first-compiling them). Here the builds are removed
 * first, as on a fresh install: the daemon builds one for every validator cached by the time it was
 * ready — its own and those its first spare made — and says so in its log. It runs from a private
 * copy of the package (a fresh install whose caches no other test file touches).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { validatorBytecodeDir } from '../../bundles/base/cached-ajv.ts';
import { privatePackage } from '../helpers/private-package.ts';
import { DAEMON_TEST_MS, REPO_ROOT, daemonsStoppedAfterAll, startDaemon } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/swarm');
const daemons = daemonsStoppedAfterAll();
// A fresh install of its own: no validator, no build, whatever the other test files do meanwhile.
const install = privatePackage();
afterAll(() => install.remove());
const VALIDATORS = join(install.cacheDir, 'validators');

describe('validators’ bytecode', () => {
  test(
    'a daemon builds the bytecode of every validator cached before it was ready; processes started later find the builds',
    async () => {
      const out = validatorBytecodeDir({ dir: VALIDATORS });
      const daemon = await startDaemon(BUNDLE, { bin: install.bin });
      daemons.push(daemon);
      const readyAt = Date.now();
      const line = await daemon.waitForLog('the validators’ bytecode built', (log) => log.msg === 'validators’ bytecode built for the processes started from now on');
      expect(line).toMatchObject({ failed: 0 });
      expect(line.built).toBeGreaterThan(0);

      const cachedBeforeReady = readdirSync(VALIDATORS).filter((name) => name.endsWith('.cjs') && statSync(join(VALIDATORS, name)).mtimeMs <= readyAt);
      // The daemon's own and its first spare's (the assignment schema among them) at least.
      expect(cachedBeforeReady.length).toBeGreaterThan(3);
      const missing = cachedBeforeReady.filter((name) => !existsSync(join(out, name.replace(/\.cjs$/, '.js'))) || !existsSync(join(out, name.replace(/\.cjs$/, '.js.jsc'))));
      expect(missing).toEqual([]);

      // A new instance after the build starts from it and answers as before.
      const { status, body } = await daemon.send({ input: 'hello', instanceKey: 'after-bytecode' });
      expect({ status, output: body.output }).toEqual({ status: 200, output: 'alpha got: hello' });
    },
    DAEMON_TEST_MS,
  );
});
