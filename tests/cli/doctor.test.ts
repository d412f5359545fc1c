/**
 * `goondan doctor` as a user runs it (real subprocesses, real sockets and files): one line per
 * check, starting with ok / warn / fail, a fix on every line that is not ok; exit 0 unless
 * something fails. Secrets are named, never shown.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../e2e/daemon-harness.ts';
import { requireSystemTool } from '../deploy/system-tool.ts';
import { type CliRun, goondan, REPO_ROOT } from './goondan-cli.ts';


const work = mkdtempSync(join(tmpdir(), 'goondan-doctor-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MAIN = join(REPO_ROOT, 'orchestrator', 'cli', 'main.ts');
const SECRET = 'sk-doctor-secret-value-1234';

function lines(run: CliRun): string[] {
  return run.stdout.split('\n').filter((line) => line !== '');
}

/** The line about `subject`; fails the test with every line when there is none. */
function lineAbout(run: CliRun, subject: string | RegExp): string {
  const found = lines(run).find((line) => (typeof subject === 'string' ? line.includes(subject) : subject.test(line)));
  if (found === undefined) throw new Error(`no line about ${String(subject)} in:\n${run.stdout}${run.stderr}`);
  return found;
}

function bundle(name: string, yaml: string, files: Record<string, string> = {}): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'goondan.yaml'), yaml);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const agentAndSwarm = (model: string, extra = '') =>
  `---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: a }\nspec:\n  modelConfig: { modelRef: Model/${model} }\n${extra}---\napiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: s }\nspec: { entryAgent: Agent/a, agents: [Agent/a] }\n`;
const openaiModel = (name: string, keyEnv: string, endpoint?: string) =>
  `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: ${name} }\nspec:\n  provider: openai-compatible\n  model: m\n  apiKey: { valueFrom: { env: ${keyEnv} } }\n${endpoint ? `  endpoint: ${endpoint}\n` : ''}`;

describe('a healthy set-up', () => {
  test('every line is ok (or warn), each check is there, exit 0', async () => {
    const dir = join(work, 'healthy');
    expect((await goondan(['init', dir])).code).toBe(0);
    const run = await goondan(['doctor', dir, '--state-root', join(work, 'state-healthy'), '--port', '0']);
    expect(run.code).toBe(0);
    for (const line of lines(run)) expect(line).toMatch(/^(ok {4}|warn {2})\S/);
    expect(lineAbout(run, 'bun ')).toStartWith(`ok    bun ${Bun.version}`);
    expect(lineAbout(run, /^\w+ +state root/)).toStartWith('ok ');
    expect(lineAbout(run, 'free for the state root')).toStartWith('ok ');
    expect(lineAbout(run, 'API port')).toBe('ok    API port 0: a free port is picked at start');
    expect(lineAbout(run, /^\w+ +bundle/)).toStartWith('ok    bundle');
    expect(lineAbout(run, 'Model/scripted')).toBe('ok    Model/scripted (mock, scripted): scripted, needs no key');
  });

  test('bwrap that can build a sandbox is ok', async () => {
    requireSystemTool('bwrap', 'bubblewrap');
    const run = await goondan(['doctor', join(work, 'nothing-here'), '--state-root', join(work, 'state-bwrap'), '--port', '0']);
    expect(lineAbout(run, /^\w+ +bwrap/)).toMatch(/^ok {4}bwrap \S+ can create a sandbox$/);
  });

  test('a key that is set is named, never shown; from the environment or from .env beside the bundle', async () => {
    const dir = bundle('keyed', openaiModel('hosted', 'DOCTOR_KEY') + agentAndSwarm('hosted'));
    const fromEnv = await goondan(['doctor', dir, '--port', '0', '--state-root', join(work, 'state-keyed')], { env: { DOCTOR_KEY: SECRET } });
    expect(lineAbout(fromEnv, 'Model/hosted')).toBe('ok    Model/hosted (openai-compatible, m): key DOCTOR_KEY is set');
    expect(`${fromEnv.stdout}${fromEnv.stderr}`).not.toContain(SECRET);
    writeFileSync(join(dir, '.env'), `DOCTOR_KEY=${SECRET}\n`);
    const fromDotenv = await goondan(['doctor', dir, '--port', '0', '--state-root', join(work, 'state-keyed')]);
    expect(fromDotenv.code).toBe(0);
    expect(lineAbout(fromDotenv, 'Model/hosted')).toContain('key DOCTOR_KEY is set');
    expect(fromDotenv.stdout).not.toContain(SECRET);
  });

  test('a loopback endpoint that answers is ok', async () => {
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('not here', { status: 404 }) });
    try {
      const dir = bundle('endpoint-up', openaiModel('local', 'LOCAL_KEY', `http://127.0.0.1:${server.port}/v1`) + agentAndSwarm('local'));
      const run = await goondan(['doctor', dir, '--port', '0', '--state-root', join(work, 'state-up')], { env: { LOCAL_KEY: 'x' } });
      expect(lineAbout(run, 'endpoint http')).toBe(`ok    Model/local: endpoint http://127.0.0.1:${server.port}/v1 answers (HTTP 404)`);
      expect(run.code).toBe(0);
    } finally {
      server.stop(true);
    }
  });

  test("the port held by goondan's daemon (found through its runtime file): ok for this bundle's swarm, a fail for another's", async () => {
    const daemon = await startDaemon(join(REPO_ROOT, 'bundles', 'demo'));
    try {
      const port = new URL(daemon.url).port;
      const run = await goondan(['doctor', join(REPO_ROOT, 'bundles', 'demo'), '--port', port, '--state-root', daemon.stateRoot]);
      expect(lineAbout(run, 'API port')).toMatch(new RegExp(`^ok {4}API port 127\\.0\\.0\\.1:${port} is held by the goondan daemon of swarm 'demo' \\(pid \\d+\\)$`));
      // goondan run of another swarm would fail on this port.
      const other = bundle('other-swarm', `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: scripted }\nspec: { provider: mock, model: scripted }\n${agentAndSwarm('scripted')}`);
      const pid = daemon.proc.pid;
      const otherRun = await goondan(['doctor', other, '--port', port, '--state-root', daemon.stateRoot]);
      expect(lineAbout(otherRun, 'API port')).toBe(
        `fail  API port 127.0.0.1:${port} is held by the goondan daemon of swarm 'demo' (pid ${pid}), not of this bundle's swarm — fix: run on another port: --port N (or GOONDAN_PORT), or stop that daemon: kill -TERM ${pid}`,
      );
      expect(otherRun.code).toBe(1);
    } finally {
      await daemon.stop();
      daemon.cleanup();
    }
  });
});

describe('a broken set-up: exit 1, and every line that is not ok says how to fix it', () => {
  test('unwritable state root, busy port, missing key, silent endpoint, missing MCP command and nats-server, no bwrap', async () => {
    const dir = bundle(
      'broken',
      openaiModel('hosted', 'DOCTOR_MISSING_KEY', 'http://127.0.0.1:1/v1') +
        agentAndSwarm('hosted', '  extensions:\n    - ref: Extension/mcp\n      config:\n        servers:\n          github: { command: npx, args: ["-y", "@modelcontextprotocol/server-github"] }\n'),
    );
    const notADir = join(work, 'a-file');
    writeFileSync(notADir, 'x');
    const busy = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const emptyPath = mkdtempSync(join(work, 'path-'));
    try {
      // bun itself, with a PATH that has none of the programs doctor looks for.
      const proc = Bun.spawn([process.execPath, MAIN, 'doctor', dir, '--state-root', join(notADir, 'state'), '--port', String(busy.port)], {
        stdout: 'pipe',
        stderr: 'pipe',
        env: { PATH: emptyPath, HOME: work, GOONDAN_CLUSTER_URL: 'nats://127.0.0.1:4222' },
      });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      const run: CliRun = { code, stdout, stderr };
      expect(run.code).toBe(1);
      for (const line of lines(run)) {
        expect(line).toMatch(/^(ok {4}|warn {2}|fail {2})\S/);
        if (!line.startsWith('ok')) expect(line).toContain(' — fix: ');
      }
      expect(lineAbout(run, /^\w+ +state root/)).toBe(`fail  state root ${join(notADir, 'state')}: ${notADir} is not a directory — fix: choose another state root (--state-root DIR or GOONDAN_STATE_ROOT)`);
      expect(lineAbout(run, 'API port')).toBe(`fail  API port 127.0.0.1:${busy.port} is in use by another program — fix: stop that program, or run on another port: --port N (or GOONDAN_PORT)`);
      expect(lineAbout(run, /^\w+ +bwrap/)).toBe('warn  bwrap (bubblewrap, for sandboxing tools) is not installed — fix: apt-get install -y bubblewrap');
      expect(lineAbout(run, 'nats-server')).toStartWith('fail  GOONDAN_CLUSTER_URL=nats://127.0.0.1:4222 is set but nats-server is not on PATH — fix: install nats-server');
      expect(lineAbout(run, 'Model/hosted (')).toBe(
        'fail  Model/hosted (openai-compatible, m): key DOCTOR_MISSING_KEY is not set — fix: set DOCTOR_MISSING_KEY in the environment, in .env beside the bundle, or in a file passed with --env-file',
      );
      expect(lineAbout(run, 'endpoint http')).toBe('fail  Model/hosted: endpoint http://127.0.0.1:1/v1 does not answer (ECONNREFUSED) — fix: start the model server (e.g. ollama serve), or fix spec.endpoint');
      expect(lineAbout(run, 'MCP server')).toBe(
        "fail  MCP server 'github' (agent a): command npx is not found on PATH — fix: install it (it comes with Node.js: apt-get install -y nodejs npm), or fix config.servers.github.command of the mcp extension",
      );
    } finally {
      busy.stop(true);
    }
  });

  test('less than 1 GB free for the state root is a warning (a 10 MB tmpfs, through bwrap)', async () => {
    const bwrap = requireSystemTool('bwrap', 'bubblewrap');
    const proc = Bun.spawn([bwrap, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--size', String(10 * 1024 * 1024), '--tmpfs', '/mnt', process.execPath, MAIN, 'doctor', '--state-root', '/mnt/state', '--port', '0'], {
      cwd: mkdtempSync(join(work, 'no-bundle-')),
      stdout: 'pipe',
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: work },
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const run: CliRun = { code, stdout, stderr };
    expect(lineAbout(run, 'free for the state root')).toBe('warn  only 10 MB free for the state root (conversations, logs, workspaces) — fix: free disk space on /mnt, or choose another --state-root');
    expect(run.code).toBe(0);
  });
});

describe('with no bundle, or an invalid one', () => {
  test('nothing to load at the PATH given: a fail, the other checks still run, exit 3 (as goondan run)', async () => {
    const missing = join(work, 'no-such-dir');
    const run = await goondan(['doctor', missing, '--state-root', join(work, 'state-none'), '--port', '0']);
    expect(run.code).toBe(3);
    expect(lineAbout(run, 'nothing to load')).toBe(
      `fail  nothing to load at ${missing} (no such file or directory) — fix: pass a bundle directory holding goondan.yaml (or resource files such as agents.yaml), or one YAML file`,
    );
    expect(lineAbout(run, 'API port')).toStartWith('ok ');
    expect(lines(run).some((line) => line.includes('Model/'))).toBe(false);
  });

  test('no PATH and no bundle in the current directory: a warning, the bundle checks are skipped, exit 0', async () => {
    const empty = mkdtempSync(join(work, 'empty-'));
    const run = await goondan(['doctor', '--state-root', join(work, 'state-none'), '--port', '0'], { cwd: empty });
    expect(run.code).toBe(0);
    expect(lineAbout(run, 'no bundle')).toStartWith(`warn  no bundle at ${empty} (`);
    expect(lineAbout(run, 'no bundle')).toEndWith('): bundle checks skipped — fix: pass the bundle directory: goondan doctor DIR');
  });

  test('an invalid bundle is a fail that points to goondan validate', async () => {
    const invalid = join(REPO_ROOT, 'tests', 'fixtures', 'bundles', 'errors', 'ref-not-found');
    const run = await goondan(['doctor', invalid, '--state-root', join(work, 'state-invalid'), '--port', '0']);
    expect(run.code).toBe(1);
    expect(lineAbout(run, /^\w+ +bundle/)).toBe(
      'fail  bundle tests/fixtures/bundles/errors/ref-not-found is invalid (1 error, first: E_CONFIG_REF_NOT_FOUND Tool/bsh not found) — fix: goondan validate tests/fixtures/bundles/errors/ref-not-found',
    );
  });
});
