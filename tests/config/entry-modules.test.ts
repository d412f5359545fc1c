/**
 * Entry modules are checked without running them (issue 11): what a static reading can know, and
 * that it stays silent about what it cannot (CommonJS, package re-exports, computed handlers).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { loadBundle } from '../../shared/config/index.ts';
import { objectLiteralKeys } from '../../shared/config/object-literal-keys.ts';
import { type TempBundle, tempBundle } from './temp-bundle.ts';


let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());

const TOOL = (exports: string[], entry = './index.ts') =>
  `apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: t }\nspec:\n  entry: ${entry}\n  exports:\n${exports.map((e) => `    - name: ${e}\n`).join('')}`;
const EXTENSION = (entry = './index.ts') => `apiVersion: goondan.ai/v1\nkind: Extension\nmetadata: { name: x }\nspec:\n  entry: ${entry}\n`;

/** `CODE file:line` of every problem, file relative to the bundle. */
async function problems(files: Record<string, string>): Promise<string[]> {
  bundle = tempBundle(files);
  const loaded = await loadBundle(bundle.dir, { env: {} });
  const dir = bundle.dir;
  return [...loaded.errors, ...loaded.warnings].map((p) => `${p.code} ${p.file.slice(dir.length + 1)}:${p.line}`);
}

describe('object literal keys are read from the transpiled module', () => {
  const keysOf = (source: string) => {
    const js = new Bun.Transpiler({ loader: 'ts' }).transformSync(source);
    return objectLiteralKeys(js, js.indexOf('{'));
  };

  test('properties, quoted keys, shorthand and methods; braces inside strings, templates and regexes do not count', () => {
    const keys = keysOf(`export const handlers = {
      plain: (ctx, input: { a: string }) => { const r = /}/g; return \`\${'}'}\${ { a: 1 }.a }\` + "}" + 1 / 2; },
      'list-files': function () { return [1, 2].map((x) => x / 2); },
      async method(ctx) { return { nested: true }; },
      get size() { return 1; },
      shorthand,
    };`);
    expect(keys).toEqual({ keys: ['plain', 'list-files', 'method', 'size', 'shorthand'], complete: true });
  });

  test('a spread or a computed key makes the list incomplete', () => {
    expect(keysOf('export const handlers = { ...base, run: () => 1 };')).toEqual({ keys: ['run'], complete: false });
    expect(keysOf("export const handlers = { [name]: () => 1, run: () => 2 };")).toEqual({ keys: ['run'], complete: false });
  });
});

describe('what the static check follows', () => {
  test('export { handlers } from a relative module: the keys are compared there', async () => {
    const found = await problems({
      'tools.yaml': TOOL(['run', 'stop']),
      'index.ts': "export { handlers } from './impl.ts';\n",
      'impl.ts': "export const handlers = {\n  run: () => 'ran',\n};\n",
    });
    expect(found).toEqual(['E_TOOL_HANDLER_MISSING impl.ts:1']);
  });

  test('export * from a relative module provides handlers', async () => {
    expect(await problems({ 'tools.yaml': TOOL(['run']), 'index.ts': "export * from './impl.ts';\n", 'impl.ts': "export const handlers = { run: () => 'ran' };\n" })).toEqual([]);
    expect(await problems({ 'tools.yaml': TOOL(['run']), 'index.ts': "export * from './impl.ts';\n", 'impl.ts': 'export const other = 1;\n' })).toEqual([
      'E_TOOL_HANDLERS_MISSING index.ts:1',
    ]);
  });

  test('a syntax error in a re-exported module is reported at that module', async () => {
    const found = await problems({ 'tools.yaml': TOOL(['run']), 'index.ts': "export * from './impl.ts';\n", 'impl.ts': 'export const handlers = {\n  run: () => (,\n};\n' });
    expect(found).toEqual(['E_MODULE_SYNTAX impl.ts:2']);
  });

  test('JavaScript entries are checked too', async () => {
    expect(await problems({ 'tools.yaml': TOOL(['run'], './index.js'), 'index.js': 'export const nothing = 1;\n' })).toEqual(['E_TOOL_HANDLERS_MISSING index.js:1']);
  });
});

describe('what cannot be known statically is never reported', () => {
  test('CommonJS modules', async () => {
    expect(await problems({ 'tools.yaml': TOOL(['run'], './index.cjs'), 'index.cjs': "module.exports = { handlers: { run: () => 'ran' } };\n" })).toEqual([]);
  });

  test('re-exports from a package', async () => {
    expect(await problems({ 'tools.yaml': TOOL(['run']), 'index.ts': "export * from 'some-package';\n" })).toEqual([]);
  });

  test('handlers built by a call, and handlers with a spread (missing ones may come from it)', async () => {
    expect(await problems({ 'tools.yaml': TOOL(['run']), 'index.ts': 'export const handlers = makeHandlers();\nfunction makeHandlers() { return {}; }\n' })).toEqual([]);
    expect(await problems({ 'tools.yaml': TOOL(['run', 'stop']), 'index.ts': "const base = {};\nexport const handlers = { ...base, run: () => 'ran' };\n" })).toEqual([]);
  });

  test('handlers extended after their declaration (assignment, Object.assign)', async () => {
    expect(await problems({ 'tools.yaml': TOOL(['run', 'stop']), 'index.ts': "export const handlers: Record<string, () => string> = { run: () => 'ran' };\nhandlers.stop = () => 'stopped';\n" })).toEqual([]);
    expect(await problems({ 'tools.yaml': TOOL(['run', 'stop']), 'index.ts': "export const handlers = { run: () => 'ran' };\nhandlers['stop'] = () => 'stopped';\n" })).toEqual([]);
    expect(await problems({ 'tools.yaml': TOOL(['run', 'stop']), 'index.ts': "export const handlers = { run: () => 'ran' };\nObject.assign(handlers, { stop: () => 'stopped' });\n" })).toEqual([]);
    // Comparing, reading or calling a handler is not extending the object.
    expect(await problems({ 'tools.yaml': TOOL(['run', 'stop']), 'index.ts': "export const handlers = { run: () => String(handlers.run === undefined) };\n" })).toEqual([
      'E_TOOL_HANDLER_MISSING index.ts:1',
    ]);
  });

  test('a Tool whose exports are missing or empty gets no handler comparison (the schema check reports it)', async () => {
    const noExports = 'apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: t }\nspec:\n  entry: ./index.ts\n  exports: []\n';
    expect(await problems({ 'tools.yaml': noExports, 'index.ts': "export const handlers = { run: () => 'ran' };\n" })).toEqual(['E_CONFIG_NO_EXPORTS tools.yaml:6']);
  });

  test('an undeclared key is still reported beside a spread', async () => {
    expect(await problems({ 'tools.yaml': TOOL(['run']), 'index.ts': "const base = {};\nexport const handlers = {\n  ...base,\n  run: () => 'ran',\n  debug: () => 1,\n};\n" })).toEqual([
      'E_TOOL_HANDLER_UNDECLARED index.ts:5',
    ]);
  });
});

describe('extensions', () => {
  test('register exported under another local name, or re-exported, is found', async () => {
    expect(await problems({ 'extensions.yaml': EXTENSION(), 'index.ts': 'function setup() {}\nexport { setup as register };\n' })).toEqual([]);
    expect(await problems({ 'extensions.yaml': EXTENSION(), 'index.ts': "export { register } from './impl.ts';\n", 'impl.ts': 'export function register() {}\n' })).toEqual([]);
  });

  test('a default export holding register is not the named export the loader needs', async () => {
    expect(await problems({ 'extensions.yaml': EXTENSION(), 'index.ts': 'export default { register() {} };\n' })).toEqual(['E_EXT_REGISTER_MISSING index.ts:1']);
  });
});
