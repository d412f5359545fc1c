/**
 * Bytecode builds of the built-in package's modules (orchestrator/process/base-module-builds.ts)
 * and how an agent process picks them (agent-process/tools/entry-module.ts). Each check runs in a
 * fresh `bun` process, as an agent does: the builds are CommonJS with bytecode, loaded by require.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBaseModules, prepareBaseModuleBuilds } from '../../orchestrator/process/base-module-builds.ts';
import { BASE_MODULE_BUILDS_ENV, BASE_PACKAGE_DIR } from '../../shared/base-module-builds.ts';
import { REPO_ROOT } from '../e2e/daemon-harness.ts';

const ENTRY_MODULE = join(REPO_ROOT, 'agent-process', 'tools', 'entry-module.ts');
const root = mkdtempSync(join(tmpdir(), 'goondan-base-builds-'));
const builds = join(root, 'builds');
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  await buildBaseModules(builds);
}, 120_000);

/** The entry modules the package's Tool and Extension resources name. */
function entryModules(): string[] {
  const entries: string[] = [];
  for (const kind of ['tools', 'extensions']) {
    for (const name of readdirSync(join(BASE_PACKAGE_DIR, kind))) {
      const manifest = join(BASE_PACKAGE_DIR, kind, name, kind === 'tools' ? 'tool.yaml' : 'extension.yaml');
      const entry = existsSync(manifest) ? readFileSync(manifest, 'utf8').match(/^\s*entry:\s*\.\/(\S+)$/m)?.[1] : undefined;
      if (entry) entries.push(join(BASE_PACKAGE_DIR, entry));
    }
  }
  return entries;
}

/** Runs `code` in a fresh bun process (ESM, top-level await) and returns what it printed as JSON. */
function run(code: string, env: Record<string, string> = {}): unknown {
  const result = Bun.spawnSync([process.execPath, '-e', code], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe' });
  if (result.exitCode !== 0) throw new Error(`bun -e exited ${result.exitCode}: ${result.stderr.toString()}`);
  return JSON.parse(result.stdout.toString());
}

describe('the built-in modules’ builds', () => {
  test('every Tool’s and Extension’s entry loads from its build and exports what its source does', () => {
    const entries = entryModules();
    expect(entries.length).toBeGreaterThan(15);
    const exported = run(`
      const entries = ${JSON.stringify(entries)};
      const out = {};
      for (const path of entries) {
        const built = require(${JSON.stringify(builds)} + path.slice(${JSON.stringify(BASE_PACKAGE_DIR)}.length).replace(/\\.ts$/, '.js'));
        const source = await import(path);
        out[path] = [Object.keys(built).filter((k) => k !== '__esModule').sort(), Object.keys(source).sort()];
      }
      console.log(JSON.stringify(out));
    `) as Record<string, [string[], string[]]>;
    for (const path of entries) expect({ path, exports: exported[path]?.[0] }).toEqual({ path, exports: exported[path]?.[1] });
  });

  test('a module several entries import stays one module, as from the sources', () => {
    const loaded = run(`
      for (const entry of ['tools/bash/index.js', 'tools/file-system/index.js', 'tools/http-fetch/index.js', 'extensions/tool-policy/index.js']) require(${JSON.stringify(builds)} + '/' + entry);
      console.log(JSON.stringify(Object.keys(require.cache).filter((path) => path.endsWith('/tool-error.js') || path.endsWith('/cached-ajv.js'))));
    `) as string[];
    expect(loaded.sort()).toEqual([join(builds, 'cached-ajv.js'), join(builds, 'tools', 'tool-error.js')]);
  });

  test('a built tool finds the files beside its source: its arguments are checked against its tool.yaml', () => {
    const answers = run(`
      const { handlers } = require(${JSON.stringify(join(builds, 'tools', 'text-transform', 'index.js'))});
      const good = await handlers.replace({}, { text: 'hello world', search: 'world', replacement: 'there' });
      let bad;
      try { await handlers.replace({}, { text: 'x', find: 'y' }); } catch (error) { bad = error.code; }
      console.log(JSON.stringify({ good, bad }));
    `);
    expect(answers).toEqual({ good: { text: 'hello there', replacements: 1 }, bad: 'E_TOOL_INVALID_ARGS' });
  });
});

describe('an agent’s import of an entry module', () => {
  const agentsTool = join(BASE_PACKAGE_DIR, 'tools', 'agents', 'index.ts');
  /** Imports each path with importEntryModule; prints whether it came from `builds` and its exports. */
  const imported = (paths: string[], env: Record<string, string>): Array<{ fromBuild: boolean; exports: string[] }> =>
    run(`
      const { importEntryModule } = await import(${JSON.stringify(ENTRY_MODULE)});
      const out = [];
      for (const path of ${JSON.stringify(paths)}) {
        const before = new Set(Object.keys(require.cache));
        const mod = await importEntryModule(path);
        const fromBuild = Object.keys(require.cache).some((p) => !before.has(p) && p.startsWith(${JSON.stringify(env[BASE_MODULE_BUILDS_ENV] ?? '/nowhere')}));
        out.push({ fromBuild, exports: Object.keys(mod).filter((k) => k !== '__esModule').sort() });
      }
      console.log(JSON.stringify(out));
    `, env) as Array<{ fromBuild: boolean; exports: string[] }>;

  test('takes a built-in module from the builds the daemon names, and anything else from its source', () => {
    const userTool = join(REPO_ROOT, 'tests', 'fixtures', 'e2e', 'swarm', 'tools', 'probe', 'index.ts');
    expect(imported([agentsTool, userTool], { [BASE_MODULE_BUILDS_ENV]: builds })).toEqual([
      { fromBuild: true, exports: ['handlers'] },
      { fromBuild: false, exports: ['handlers'] },
    ]);
  });

  test('imports the source while the named builds are not there yet, and when a build does not load', () => {
    expect(imported([agentsTool], { [BASE_MODULE_BUILDS_ENV]: join(root, 'not-yet') })).toEqual([{ fromBuild: false, exports: ['handlers'] }]);
    const damaged = join(root, 'damaged');
    cpSync(builds, damaged, { recursive: true });
    writeFileSync(join(damaged, 'tools', 'agents', 'index.js'), 'throw new Error("damaged");');
    rmSync(join(damaged, 'tools', 'agents', 'index.js.jsc'), { force: true });
    expect(imported([agentsTool], { [BASE_MODULE_BUILDS_ENV]: damaged })).toEqual([{ fromBuild: false, exports: ['handlers'] }]);
  });
});

describe('the daemon’s pass', () => {
  const log = () => {
    const lines: Array<{ level: 'info' | 'warn'; msg: string }> = [];
    return { lines, info: (_obj: object, msg: string) => lines.push({ level: 'info', msg }), warn: (_obj: object, msg: string) => lines.push({ level: 'warn', msg }) };
  };

  test('builds what is missing, leaves what is there, and only warns when it cannot build', async () => {
    const fresh = log();
    await prepareBaseModuleBuilds(fresh, join(root, 'fresh'));
    expect(existsSync(join(root, 'fresh', 'extensions', 'context-message', 'index.js'))).toBe(true);
    expect(fresh.lines.map((line) => line.level)).toEqual(['info']);

    const again = log();
    await prepareBaseModuleBuilds(again, join(root, 'fresh'));
    expect(again.lines).toEqual([]);

    const blocked = log();
    writeFileSync(join(root, 'a-file'), '');
    await prepareBaseModuleBuilds(blocked, join(root, 'a-file', 'builds'));
    expect(blocked.lines.map((line) => line.level)).toEqual(['warn']);
  }, 120_000);
});
