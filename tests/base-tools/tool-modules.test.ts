import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isJsonObject } from '../../shared/types/json.ts';
import type { ToolModule } from '../../shared/types/index.ts';

const TOOLS_DIR = join(import.meta.dir, '../../bundles/base/tools');
const TOOLS = ['bash', 'file-system', 'http-fetch', 'wait', 'json-query', 'text-transform', 'self-restart', 'telegram', 'slack'];

function exportsOf(tool: string): Array<{ name: string; parameters: unknown }> {
  const doc: unknown = parse(readFileSync(join(TOOLS_DIR, tool, 'tool.yaml'), 'utf8'));
  const spec = isJsonObject(doc) ? doc.spec : undefined;
  const list = isJsonObject(spec) && Array.isArray(spec.exports) ? spec.exports : [];
  return list.filter(isJsonObject).map((item) => ({ name: String(item.name), parameters: item.parameters }));
}

describe('each built-in tool module matches its tool.yaml (tool spec §2.7, §15)', () => {
  test.each(TOOLS)('%s: one handler per export, no extra handlers', async (tool) => {
    const module: ToolModule = await import(join(TOOLS_DIR, tool, 'index.ts'));
    expect(Object.keys(module.handlers).sort()).toEqual(exportsOf(tool).map((item) => item.name).sort());
  });

  test.each(TOOLS)('%s: every parameters schema is a closed object', (tool) => {
    for (const item of exportsOf(tool)) {
      expect(item.parameters).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });
});
