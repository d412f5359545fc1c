/**
 * Bounded tool output (issue 9): a result larger than maxToolResultBytes is cut in the conversation
 * and for the model, with a marker naming the saved file; the whole output is in the workspace and
 * the real file-system tool pages through it.
 */
import { DEFAULT_SANDBOX } from '../../shared/config/sandbox-plan.ts';
import { describe, expect, test } from 'bun:test';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import type { ToolExportPlan, ToolPlan } from '../../shared/types/bundle.ts';
import { fixtureTool, makePlan, storedToolResults, trackEngines, userEvent } from './helpers/engine-fixture.ts';

const engines = trackEngines();

const BASE = resolve(import.meta.dir, '../../bundles/base');

/** The built-in file-system tool, as the config plane would plan it. */
function fileSystemTool(): ToolPlan {
  const doc = YAML.parseAllDocuments(readFileSync(join(BASE, 'tools/file-system/tool.yaml'), 'utf8'))[0]?.toJSON() as { spec: { exports: ToolExportPlan[] } };
  return { name: 'file-system', packageName: '@goondan/base', entryPath: join(BASE, 'tools/file-system/index.ts'), errorMessageLimit: 2000, exports: doc.spec.exports, config: {}, sandbox: DEFAULT_SANDBOX };
}

const bigTool = (extra: Partial<ToolPlan> = {}) =>
  fixtureTool('big', 'big.ts', [{ name: 'make', description: 'Make a big text.', parameters: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] } }], extra);

const SAVED = '.goondan/tool-output/call_1.txt';

/** The text of a stored tool result (`{type: 'text', value}`). */
function storedText(output: unknown): string {
  return typeof output === 'object' && output !== null && 'value' in output ? String(output.value) : String(output);
}

describe('tool results larger than maxToolResultBytes', () => {
  test('are cut, with a marker, in the stored conversation and in what the model sees; the whole text is in the workspace', async () => {
    const h = await engines.start(
      makePlan({
        maxToolResultBytes: 4096,
        tools: [bigTool(), fileSystemTool()],
        script: {
          rules: [
            { match: 'make it big', toolCalls: [{ name: 'big__make', args: { bytes: 200_000 } }], then: 'model saw {{result}}' },
            { match: 'read on', toolCalls: [{ name: 'file-system__read', args: { path: SAVED, offset: 199_988 } }], then: 'tail: {{result.content}}' },
          ],
        },
      }),
    );
    const result = await h.engine.runTurn(userEvent('make it big'));
    const [stored] = storedToolResults(h.paths);
    const text = storedText(stored?.output);
    expect(Buffer.byteLength(text.split('\n\n[output truncated')[0] ?? '', 'utf8')).toBeLessThanOrEqual(4096);
    expect(text).toContain(`[output truncated by goondan: 200000 bytes in total, the first 4096 shown. The whole output is in the workspace file ${SAVED}`);
    expect(result.responseText).toContain('[output truncated by goondan');
    expect(result.responseText.length).toBeLessThan(6000);
    const saved = readFileSync(join(h.paths.workdir, SAVED), 'utf8');
    expect(Buffer.byteLength(saved, 'utf8')).toBe(200_000);
    expect(saved.endsWith('한글한글')).toBe(true);

    const paged = await h.engine.runTurn(userEvent('read on'));
    expect(paged.responseText).toBe('tail: 한글한글');
  });

  test('a cut never splits a multi-byte character, and a tool\'s own maxResultBytes wins over the agent\'s', async () => {
    const h = await engines.start(
      makePlan({
        maxToolResultBytes: 1_000_000,
        tools: [bigTool({ maxResultBytes: 2048 })],
        script: { rules: [{ match: 'go', toolCalls: [{ name: 'big__make', args: { bytes: 2_058 } }], then: 'done' }] },
      }),
    );
    await h.engine.runTurn(userEvent('go'));
    const text = storedText(storedToolResults(h.paths)[0]?.output);
    const preview = text.split('\n\n[output truncated')[0] ?? '';
    expect(preview).not.toContain('\uFFFD');
    expect(Buffer.byteLength(preview, 'utf8')).toBeLessThanOrEqual(2048);
    expect(text).toContain('2058 bytes in total');
  });

  test('results within the bound are left as they are', async () => {
    const h = await engines.start(makePlan({ maxToolResultBytes: 4096, tools: [bigTool()], script: { rules: [{ match: 'go', toolCalls: [{ name: 'big__make', args: { bytes: 100 } }], then: 'done' }] } }));
    await h.engine.runTurn(userEvent('go'));
    expect(storedText(storedToolResults(h.paths)[0]?.output)).toBe(`${'x'.repeat(88)}한글한글`);
  });

  test('a link planted where the output goes is never written through: not as the file, not as its directory', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'goondan-outside-'));
    try {
      const victim = join(outside, 'victim.conf');
      writeFileSync(victim, 'original');
      const plan = makePlan({ maxToolResultBytes: 1024, tools: [bigTool()], script: { rules: [{ match: 'go', toolCalls: [{ name: 'big__make', args: { bytes: 5000 } }], then: 'done' }] } });
      // The file itself is a link to a file outside.
      const h = await engines.start(plan);
      mkdirSync(join(h.paths.workdir, '.goondan/tool-output'), { recursive: true });
      symlinkSync(victim, join(h.paths.workdir, SAVED));
      await h.engine.runTurn(userEvent('go'));
      expect(readFileSync(victim, 'utf8')).toBe('original');
      expect(lstatSync(join(h.paths.workdir, SAVED)).isFile()).toBe(true);
      // Its directory is a link to a directory outside: nothing is created there, and the model is told.
      const h2 = await engines.start(plan);
      mkdirSync(join(h2.paths.workdir, '.goondan'), { recursive: true });
      symlinkSync(outside, join(h2.paths.workdir, '.goondan/tool-output'));
      await h2.engine.runTurn(userEvent('go'));
      expect(readdirSync(outside)).toEqual(['victim.conf']);
      expect(storedText(storedToolResults(h2.paths)[0]?.output)).toContain(`The rest could not be saved in ${SAVED}`);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
