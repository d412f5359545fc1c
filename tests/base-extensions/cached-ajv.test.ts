/**
 * Validators are generated once as ajv standalone code and cached (bundles/base/cached-ajv.ts):
 * another process loads the cached file and validates the same way (defaults filled in, problems
 * reported) without loading ajv's compiler, which costs ~20 MB of RSS in every agent.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO_ROOT = join(import.meta.dir, '../..');
const dir = mkdtempSync(join(tmpdir(), 'goondan-ajv-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCHEMA = { type: 'object', additionalProperties: false, properties: { maxMessages: { type: 'integer', minimum: 1, default: 20 } } };

/** Runs one check in a fresh Bun process; prints its result and whether ajv's compiler was loaded. */
async function checkInFreshProcess(schema: object, config: object): Promise<{ ok: boolean; value: unknown; errors: unknown; compilerLoaded: boolean }> {
  const script = `
    import { createRequire } from 'node:module';
    import { cachedAjvValidator } from ${JSON.stringify(join(REPO_ROOT, 'bundles/base/cached-ajv.ts'))};
    const require = createRequire(${JSON.stringify(join(REPO_ROOT, 'package.json'))});
    const validate = cachedAjvValidator({ schema: ${JSON.stringify(schema)}, options: { allErrors: true, strict: false, useDefaults: true } }, { dir: ${JSON.stringify(dir)}, require });
    const value = ${JSON.stringify(config)};
    const ok = validate(value);
    const compilerLoaded = Object.keys(require.cache).some((path) => path.includes('/ajv/dist/compile/'));
    console.log(JSON.stringify({ ok, value, errors: validate.errors ?? null, compilerLoaded }));
  `;
  const proc = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe', cwd: REPO_ROOT });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the check process exited ${code}: ${err}`);
  return JSON.parse(out);
}

describe('cached standalone validators', () => {
  test('the first process compiles and stores the validator; the next loads it without ajv’s compiler and gets the same answers', async () => {
    const first = await checkInFreshProcess(SCHEMA, {});
    expect(first).toMatchObject({ ok: true, value: { maxMessages: 20 }, compilerLoaded: true });
    expect(readdirSync(dir).filter((f) => f.endsWith('.cjs'))).toHaveLength(1);

    const second = await checkInFreshProcess(SCHEMA, {});
    expect(second).toMatchObject({ ok: true, value: { maxMessages: 20 }, compilerLoaded: false });
    const bad = await checkInFreshProcess(SCHEMA, { maxMessages: 0, extra: true });
    expect(bad.ok).toBe(false);
    expect(bad.compilerLoaded).toBe(false);
    expect(JSON.stringify(bad.errors)).toContain('minimum');
    expect(JSON.stringify(bad.errors)).toContain('additionalProperties');
  });

  test('string lengths count code points exactly as ajv’s own validator does (surrogate pairs, lone surrogates), without ajv’s looping helper', async () => {
    const strings = ['', 'a', 'ab', 'abc', 'abcd', '😀', '😀😀', 'a😀b', '😀😀😀😀', '\uD83D', '\uDE00', '\uD83Dx', 'x\uDE00\uD83D', '\uD83D\uD83D\uDE00', 'é👍🏽', 'x'.repeat(10_000)];
    const schema = { type: 'array', items: { type: 'string', minLength: 2, maxLength: 3 } };
    const { Ajv } = await import('ajv');
    const reference = new Ajv({ allErrors: true, strict: false }).compile({ type: 'string', minLength: 2, maxLength: 3 });
    const expected = strings.map((s) => reference(s));
    expect(expected).toContain(true);
    expect(expected).toContain(false);
    for (const pass of ['generated', 'cached']) {
      const result = await checkInFreshProcess(schema, strings);
      const failed = new Set((result.errors as Array<{ instancePath: string }> | null ?? []).map((e) => Number(e.instancePath.slice(1))));
      expect({ pass, answers: strings.map((_s, i) => !failed.has(i)) }).toEqual({ pass, answers: expected });
    }
    const generated = readdirSync(dir).filter((f) => f.endsWith('.cjs')).map((f) => readFileSync(join(dir, f), 'utf8'));
    expect(generated.some((code) => code.includes('ucs2length'))).toBe(false);
  });

  test('GOONDAN_CACHE_DIR moves the built-in tools’ cache with the daemon’s (a read-only package directory)', async () => {
    const script = `
      import { ajvCacheBesideAjv } from ${JSON.stringify(join(REPO_ROOT, 'bundles/base/cached-ajv.ts'))};
      import { VALIDATOR_CACHE_DIR } from ${JSON.stringify(join(REPO_ROOT, 'shared/validation/compiled-validator.ts'))};
      console.log(JSON.stringify({ tools: ajvCacheBesideAjv().dir, goondan: VALIDATOR_CACHE_DIR }));
    `;
    const run = (env: Record<string, string>) => JSON.parse(Bun.spawnSync([process.execPath, '-e', script], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env } }).stdout.toString());
    expect(run({ GOONDAN_CACHE_DIR: join(dir, 'moved') })).toEqual({ tools: join(dir, 'moved', 'validators'), goondan: join(dir, 'moved', 'validators') });
    const unmoved = run({});
    expect(unmoved.tools).toBe(join(REPO_ROOT, 'node_modules', '.cache', 'goondan', 'validators'));
    expect(unmoved.goondan).toBe(unmoved.tools);
  });

  test('an edited schema is a new cache entry, never the stale validator', async () => {
    const edited = { ...SCHEMA, properties: { maxMessages: { type: 'integer', minimum: 1, default: 50 } } };
    const result = await checkInFreshProcess(edited, {});
    expect(result).toMatchObject({ ok: true, value: { maxMessages: 50 } });
    expect(readdirSync(dir).filter((f) => f.endsWith('.cjs'))).toHaveLength(3);
  });
});
