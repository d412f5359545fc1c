/**
 * Bytecode builds of the cached validators (orchestrator/process/validator-bytecode.ts): a daemon
 * builds each cached validator once for this Bun; later processes load the build (no parse, no
 * first-call compile) and answer exactly as the source does. A file that does not build costs only
 * its own speed; a stopping daemon builds no more; builds for another Bun version go.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validatorBytecodeDir } from '../../bundles/base/cached-ajv.ts';
import { buildValidatorBytecode } from '../../orchestrator/process/validator-bytecode.ts';

const REPO_ROOT = join(import.meta.dir, '../..');
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-validator-bytecode-'));
  roots.push(dir);
  return dir;
}

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 2 }, tags: { type: 'array', items: { type: 'string' } }, limit: { type: 'integer', minimum: 1, default: 20 } },
};

interface Check {
  answers: Array<{ ok: boolean; value: unknown; errors: unknown }>;
  /** The validator files this process loaded. */
  loaded: string[];
}

/** Validates `inputs` in a fresh Bun process through cachedAjvValidator with the cache in `dir`. */
async function checkInFreshProcess(dir: string, inputs: readonly unknown[]): Promise<Check> {
  const script = `
    import { createRequire } from 'node:module';
    import { cachedAjvValidator } from ${JSON.stringify(join(REPO_ROOT, 'bundles/base/cached-ajv.ts'))};
    const require = createRequire(${JSON.stringify(join(REPO_ROOT, 'package.json'))});
    const validate = cachedAjvValidator({ schema: ${JSON.stringify(SCHEMA)}, options: { allErrors: true, strict: false, useDefaults: true } }, { dir: ${JSON.stringify(dir)}, require });
    const answers = ${JSON.stringify(inputs)}.map((value) => ({ ok: validate(value), value, errors: validate.errors ?? null }));
    const loaded = Object.keys(require.cache).filter((path) => path.startsWith(${JSON.stringify(dir)}));
    console.log(JSON.stringify({ answers, loaded }));
  `;
  const proc = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe', cwd: REPO_ROOT });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the check process exited ${code}: ${err}`);
  return JSON.parse(out) as Check;
}

const INPUTS = [{ name: 'ok' }, { name: 'x', tags: ['a', 1], extra: true }, { tags: [] }, 'not an object'];

describe('bytecode builds of the cached validators', () => {
  test('built once per validator; a later process loads the build and answers exactly as the source did', async () => {
    const dir = cacheDir();
    const fromSource = await checkInFreshProcess(dir, INPUTS);
    const sources = readdirSync(dir).filter((name) => name.endsWith('.cjs'));
    expect(sources).toHaveLength(1);
    expect(fromSource.answers.map((answer) => answer.ok)).toEqual([true, false, false, false]);

    expect(await buildValidatorBytecode(dir)).toEqual({ built: 1, failed: 0 });
    const out = validatorBytecodeDir({ dir });
    const build = join(out, sources[0]!.replace(/\.cjs$/, '.js'));
    expect(readFileSync(build, 'utf8').startsWith('// @bun @bytecode')).toBe(true);
    expect(readFileSync(`${build}.jsc`).byteLength).toBeGreaterThan(0);
    expect(await buildValidatorBytecode(dir)).toEqual({ built: 0, failed: 0 });

    const fromBuild = await checkInFreshProcess(dir, INPUTS);
    expect(fromBuild.loaded).toEqual([build]);
    expect(fromBuild.answers).toEqual(fromSource.answers);
    expect(JSON.stringify(fromBuild.answers[1]!.errors)).toContain('additionalProperties');
  });

  test('a file that does not build is counted and left to its source; the rest of its batch is built', async () => {
    const dir = cacheDir();
    await checkInFreshProcess(dir, INPUTS);
    writeFileSync(join(dir, '0000000000000000.cjs'), 'module.exports = function (data) { return ;;; }}} broken');
    expect(await buildValidatorBytecode(dir)).toEqual({ built: 1, failed: 1 });
    const out = validatorBytecodeDir({ dir });
    expect(existsSync(join(out, '0000000000000000.js'))).toBe(false);
    expect(readdirSync(out).filter((name) => name.endsWith('.js'))).toHaveLength(1);
  });

  test('a stopping daemon builds nothing more', async () => {
    const dir = cacheDir();
    await checkInFreshProcess(dir, INPUTS);
    expect(await buildValidatorBytecode(dir, () => true)).toEqual({ built: 0, failed: 0 });
    expect(existsSync(join(validatorBytecodeDir({ dir }), readdirSync(dir)[0]!.replace(/\.cjs$/, '.js')))).toBe(false);
  });

  test('a cache it cannot write to (a read-only install) builds nothing and throws nothing', async () => {
    const dir = cacheDir();
    await checkInFreshProcess(dir, INPUTS);
    // Where the builds would go is taken by a file: mkdir fails as on a read-only file system, also for root.
    writeFileSync(validatorBytecodeDir({ dir }), '');
    expect(await buildValidatorBytecode(dir)).toEqual({ built: 0, failed: 0 });
  });

  test('builds for another Bun version are removed: that Bun rejects them', async () => {
    const dir = cacheDir();
    await checkInFreshProcess(dir, INPUTS);
    const other = join(dir, 'bytecode-0.0.1');
    mkdirSync(other);
    writeFileSync(join(other, 'stale.js'), '');
    expect(await buildValidatorBytecode(dir)).toEqual({ built: 1, failed: 0 });
    expect(existsSync(other)).toBe(false);
    expect(existsSync(validatorBytecodeDir({ dir }))).toBe(true);
  });
});
