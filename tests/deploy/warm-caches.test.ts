/**
 * Installs whose daemon cannot write to the package directory (the container image's user,
 * systemd's ProtectSystem=strict). Either the caches move beside the state (GOONDAN_CACHE_DIR, as
 * the image and the unit do: tests/e2e/cache-dir.test.ts), or scripts/warm-caches.ts builds at
 * install what a daemon would build on its first run — the agent entry bundle, the schema
 * validators, their bytecode and the built-in modules' bytecode builds. Here the caches are removed, as in a fresh install, the script
 * builds them, and a real `goondan run` of the demo then answers a message without building or
 * generating anything.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { validatorBytecodeDir } from '../../bundles/base/cached-ajv.ts';
import { freshAgentBundle } from '../../orchestrator/process/agent-bundle.ts';
import { baseModuleBuildDir } from '../../orchestrator/process/base-module-builds.ts';
import { BUILD_CACHE_DIR } from '../../shared/package-root.ts';
import { VALIDATOR_CACHE_DIR } from '../../shared/validation/compiled-validator.ts';
import { DAEMON_TEST_MS, REPO_ROOT, daemonsStoppedAfterAll, startDaemon } from '../e2e/daemon-harness.ts';

const DOCKERFILE = await Bun.file(join(REPO_ROOT, 'Dockerfile')).text();
const daemons = daemonsStoppedAfterAll();

function cachedFiles(): string[] {
  const names = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : []);
  const builtModules = join(BUILD_CACHE_DIR, 'base-modules');
  return [...names(join(BUILD_CACHE_DIR, 'agent')), ...names(VALIDATOR_CACHE_DIR), ...names(validatorBytecodeDir({ dir: VALIDATOR_CACHE_DIR })), ...names(builtModules).flatMap(names)].sort();
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
      rmSync(join(BUILD_CACHE_DIR, 'agent'), { recursive: true, force: true });
      rmSync(VALIDATOR_CACHE_DIR, { recursive: true, force: true });
      rmSync(join(BUILD_CACHE_DIR, 'base-modules'), { recursive: true, force: true });
      const proc = Bun.spawn([process.execPath, join(REPO_ROOT, 'scripts/warm-caches.ts')], { cwd: REPO_ROOT, stdout: 'pipe', stderr: 'pipe' });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(out).toContain('caches warm');
      expect(freshAgentBundle()).toBeDefined();
      const sources = readdirSync(VALIDATOR_CACHE_DIR).filter((name) => name.endsWith('.cjs'));
      expect(sources.length).toBeGreaterThan(10);
      const unbuilt = sources.filter((name) => !existsSync(join(validatorBytecodeDir({ dir: VALIDATOR_CACHE_DIR }), name.replace(/\.cjs$/, '.js'))));
      expect(unbuilt).toEqual([]);
      expect(existsSync(join(baseModuleBuildDir(), 'extensions', 'context-message', 'index.js'))).toBe(true);

      const before = cachedFiles();
      const daemon = await startDaemon(join(REPO_ROOT, 'bundles', 'demo'));
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
