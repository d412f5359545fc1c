/**
 * Installs whose daemon cannot write to the package directory (the container image's user,
 * systemd's ProtectSystem=strict). Either the caches move beside the state (GOONDAN_CACHE_DIR, as
 * the image and the unit do: tests/e2e/cache-dir.test.ts), or scripts/warm-caches.ts builds at
 * install what a daemon would build on its first run — the agent entry bundle, the schema
 * validators, their bytecode and the built-in modules' bytecode builds. Here, in a private copy of
 * the package (a fresh install: no caches), the script builds them, and a real `goondan run` of the
 * demo from that copy then answers a message without building or generating anything.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validatorBytecodeDir } from '../../bundles/base/cached-ajv.ts';
import { privatePackage } from '../helpers/private-package.ts';
import { DAEMON_TEST_MS, REPO_ROOT, daemonsStoppedAfterAll, startDaemon } from '../e2e/daemon-harness.ts';

const DOCKERFILE = await Bun.file(join(REPO_ROOT, 'Dockerfile')).text();
const daemons = daemonsStoppedAfterAll();

// A fresh install of its own (a private copy of the package): its caches start empty, and no other
// test file builds into them meanwhile.
const install = privatePackage();
afterAll(() => install.remove());
const VALIDATORS = join(install.cacheDir, 'validators');
const names = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : []);

function cachedFiles(): string[] {
  const builtModules = join(install.cacheDir, 'base-modules');
  return [...names(join(install.cacheDir, 'agent')), ...names(VALIDATORS), ...names(validatorBytecodeDir({ dir: VALIDATORS })), ...names(builtModules).flatMap(names)].sort();
}

describe('caches of an install the daemon cannot write to', () => {
  test('the image and the systemd unit keep the caches beside the state, which they can write to', () => {
    const finalStage = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM '));
    const env = (name: string): string | undefined => finalStage.match(new RegExp(`\\b${name}=(\\S+)`))?.[1];
    expect(env('GOONDAN_CACHE_DIR')?.startsWith(`${env('GOONDAN_STATE_ROOT')}/`)).toBe(true);
    expect(finalStage).toMatch(/^VOLUME \["\/var\/lib\/goondan"\]$/m);
    const unit = readFileSync(join(REPO_ROOT, 'deploy', 'goondan.service'), 'utf8');
    const writable = unit.match(/^ReadWritePaths=(\S+)$/m)?.[1];
    expect(writable).toBeDefined();
    expect(unit.match(/^Environment=GOONDAN_CACHE_DIR=(\S+)$/m)?.[1]?.startsWith(`${writable}/`)).toBe(true);
  });

  test(
    'after the script, `goondan run` of the demo answers without building or generating anything',
    async () => {
      expect(cachedFiles()).toEqual([]);
      const proc = Bun.spawn([process.execPath, join(install.root, 'scripts/warm-caches.ts')], { cwd: install.root, stdout: 'pipe', stderr: 'pipe' });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(out).toContain('caches warm');
      expect(names(join(install.cacheDir, 'agent')).filter((path) => /\/agent-[0-9a-f]+\.js$/.test(path))).toHaveLength(1);
      const sources = readdirSync(VALIDATORS).filter((name) => name.endsWith('.cjs'));
      expect(sources.length).toBeGreaterThan(10);
      const unbuilt = sources.filter((name) => !existsSync(join(validatorBytecodeDir({ dir: VALIDATORS }), name.replace(/\.cjs$/, '.js'))));
      expect(unbuilt).toEqual([]);
      const moduleBuilds = names(join(install.cacheDir, 'base-modules'));
      expect(moduleBuilds).toHaveLength(1);
      expect(existsSync(join(moduleBuilds[0] ?? '', 'extensions', 'context-message', 'index.js'))).toBe(true);

      const before = cachedFiles();
      const daemon = await startDaemon(join(REPO_ROOT, 'bundles', 'demo'), { bin: install.bin });
      daemons.push(daemon);
      const { status } = await daemon.send({ input: 'hello', instanceKey: 'read-only' });
      expect(status).toBe(200);
      expect(await daemon.stop()).toBe(0);
      expect(daemon.logs.filter((line) => line.msg === 'agent entry bundled')).toEqual([]);
      expect(cachedFiles()).toEqual(before);
    },
    DAEMON_TEST_MS,
  );
});
