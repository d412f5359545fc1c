/**
 * deploy/goondan.service and the Dockerfile as the service managers will use them: the unit is
 * clean for `systemd-analyze verify`, does not restart on exit codes a restart cannot fix, and its
 * hardening leaves tools working; the image's health check follows GOONDAN_PORT.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT } from '../../orchestrator/cli/exit-codes.ts';
import { GOONDAN_BIN, REPO_ROOT, waitUntil } from '../e2e/daemon-harness.ts';
import { requireSystemTool } from './system-tool.ts';


const UNIT = readFileSync(join(REPO_ROOT, 'deploy', 'goondan.service'), 'utf8');
const DOCKERFILE = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');

const temps: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `Key=value` lines of the unit's [Service] section. */
function serviceSetting(key: string): string | undefined {
  return UNIT.match(new RegExp(`^${key}=(.*)$`, 'm'))?.[1];
}

describe('deploy/goondan.service', () => {
  test('systemd-analyze verify reports nothing (with goondan installed where the unit expects it)', () => {
    const analyze = requireSystemTool('systemd-analyze', 'systemd');
    // The unit names /opt/goondan; here the install is this checkout.
    const unit = join(tempDir('goondan-unit-'), 'goondan.service');
    writeFileSync(unit, UNIT.replaceAll('/opt/goondan', REPO_ROOT));
    const verify = Bun.spawnSync([analyze, 'verify', unit], { stdout: 'pipe', stderr: 'pipe' });
    expect({ code: verify.exitCode, output: `${verify.stdout}${verify.stderr}`.trim() }).toEqual({ code: 0, output: '' });
  });

  test('exit codes a restart cannot fix (usage, nothing to load, invalid bundle) stop the restart loop', () => {
    const prevented = (serviceSetting('RestartPreventExitStatus') ?? '').split(/\s+/).map(Number);
    expect(prevented.sort()).toEqual([EXIT.usage, EXIT.configNotFound, EXIT.invalidBundle].sort());
    expect(serviceSetting('Restart')).toBe('on-failure');
  });

  test('hardening: a read-only system, the state root writable, a private /tmp', () => {
    expect(serviceSetting('NoNewPrivileges')).toBe('yes');
    expect(serviceSetting('ProtectSystem')).toBe('strict');
    const stateRoot = UNIT.match(/^Environment=GOONDAN_STATE_ROOT=(.*)$/m)?.[1];
    expect(stateRoot).toBe('/var/lib/goondan');
    expect(serviceSetting('ReadWritePaths')).toBe(stateRoot);
    expect(serviceSetting('PrivateTmp')).toBe('yes');
    // What bwrap (tool sandboxing) and Bun's JIT need must stay allowed.
    for (const key of ['RestrictNamespaces', 'PrivateUsers', 'MemoryDenyWriteExecute', 'SystemCallFilter']) expect(serviceSetting(key)).toBeUndefined();
  });

  test('under that hardening the tools still work, and the caches are built where the unit keeps them: the coder demo writes and runs a script', async () => {
    const bwrap = requireSystemTool('bwrap', 'bubblewrap');
    const stateRoot = tempDir('goondan-hardened-');
    // The unit's GOONDAN_CACHE_DIR, moved with its state root (/opt and the package are read-only here).
    const unitCacheDir = UNIT.match(/^Environment=GOONDAN_CACHE_DIR=(.*)$/m)?.[1] ?? '';
    expect(unitCacheDir.startsWith('/var/lib/goondan/')).toBe(true);
    const cacheDir = join(stateRoot, unitCacheDir.slice('/var/lib/goondan/'.length));
    // ProtectSystem=strict + ReadWritePaths=<state root> + ProtectHome + PrivateTmp, as bwrap binds.
    const sandbox = [bwrap, '--ro-bind', '/', '/', '--tmpfs', '/tmp', '--tmpfs', '/home', '--tmpfs', '/root', '--bind', stateRoot, stateRoot, '--dev', '/dev', '--proc', '/proc', '--die-with-parent'];
    const proc = Bun.spawn([...sandbox, GOONDAN_BIN, 'run', join(REPO_ROOT, 'bundles', 'coder'), '--port', '0', '--state-root', stateRoot, '--input', 'Create a hello world script and run it.'], {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: stateRoot, GOONDAN_CACHE_DIR: cacheDir },
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'I wrote hello.sh and ran it. It printed: Hello, world from workspace!' });
    expect(err).not.toContain('EROFS');
    // Agents started from the bundle built there, with validators generated there.
    expect(readdirSync(join(cacheDir, 'agent')).some((name) => /^agent-[0-9a-f]+\.js$/.test(name))).toBe(true);
    expect(readdirSync(join(cacheDir, 'validators')).filter((name) => name.endsWith('.cjs')).length).toBeGreaterThan(0);
  });
});

describe('Dockerfile', () => {
  const healthcheck = (): string[] => {
    const match = DOCKERFILE.match(/^HEALTHCHECK [^\n]*\\\n\s*CMD (\[.*\])$/m);
    if (!match?.[1]) throw new Error('no HEALTHCHECK … CMD [exec form] in the Dockerfile');
    const argv: unknown = JSON.parse(match[1]);
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) throw new Error(`HEALTHCHECK CMD is not a list of strings: ${match[1]}`);
    return argv.map((a) => (a === '/opt/goondan/node_modules/.bin/bun' ? process.execPath : a));
  };

  test('the final image has Node (npx-based MCP servers) and runs goondan without a fixed --port', () => {
    const stages = [...DOCKERFILE.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(stages.at(-1)).toMatch(/^node:/);
    const cmd = DOCKERFILE.match(/^CMD (\[.*\])$/m)?.[1] ?? '[]';
    expect(JSON.parse(cmd)).not.toContain('--port');
    expect(DOCKERFILE).toMatch(/^ENV [\s\S]*GOONDAN_PORT=7420/m);
  });

  test('the health check follows GOONDAN_PORT: healthy on the daemon\'s port, unhealthy elsewhere', async () => {
    const stateRoot = tempDir('goondan-docker-');
    const cmd: unknown = JSON.parse(DOCKERFILE.match(/^CMD (\[.*\])$/m)?.[1] ?? '[]');
    if (!Array.isArray(cmd)) throw new Error('CMD is not exec form');
    const args = cmd.map((a) => (a === '/bundle' ? join(REPO_ROOT, 'bundles', 'demo') : String(a)));
    let port = 0;
    let daemon: ReturnType<typeof Bun.spawn> | undefined;
    // A port found free may be taken before the daemon binds it: try a few.
    for (let attempt = 0; attempt < 5 && daemon === undefined; attempt++) {
      const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
      port = probe.port;
      probe.stop(true);
      const proc = Bun.spawn([GOONDAN_BIN, ...args, '--state-root', stateRoot], {
        stdin: 'ignore',
        stdout: 'ignore',
        stderr: 'pipe',
        env: { PATH: process.env.PATH ?? '', HOME: stateRoot, GOONDAN_PORT: String(port), GOONDAN_API_TOKEN: 'docker-test-token' },
      });
      const up = await Promise.race([
        waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok === true, `GET /healthz on GOONDAN_PORT ${port}`).then(() => true),
        proc.exited.then(() => false),
      ]);
      if (up) daemon = proc;
    }
    if (!daemon) throw new Error('the daemon did not start on a free GOONDAN_PORT in 5 attempts');
    try {
      const check = (env: Record<string, string>) => Bun.spawnSync(healthcheck(), { env: { PATH: process.env.PATH ?? '', ...env } }).exitCode;
      expect(check({ GOONDAN_PORT: String(port) })).toBe(0);
      const closed = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
      const unused = closed.port;
      closed.stop(true);
      expect(check({ GOONDAN_PORT: String(unused) })).toBe(1);
    } finally {
      daemon.kill('SIGTERM');
      await daemon.exited;
    }
  });
});
