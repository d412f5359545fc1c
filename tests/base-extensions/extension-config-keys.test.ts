/**
 * Every built-in extension rejects a config key it does not know, at the agent's start, with an
 * error naming the extension and the key (E_EXT_CONFIG): a misspelt setting never goes unnoticed.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BASE_PACKAGE_DIR } from '../../shared/config/index.ts';
import { isJsonObject, type JsonObject } from '../../shared/types/json.ts';
import { makePlan, trackEngines } from '../agent-process/helpers/engine-fixture.ts';


const engines = trackEngines();
const EXTENSIONS_DIR = join(BASE_PACKAGE_DIR, 'extensions');

/** name → the extension's own spec.config (its defaults), for each extension.yaml in @goondan/base. */
function builtinExtensions(): Array<{ name: string; entryPath: string; config: JsonObject }> {
  return readdirSync(EXTENSIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const file = join(EXTENSIONS_DIR, entry.name, 'extension.yaml');
      let doc: unknown;
      try {
        doc = parse(readFileSync(file, 'utf8'));
      } catch {
        return [];
      }
      if (!isJsonObject(doc) || !isJsonObject(doc.spec) || !isJsonObject(doc.metadata) || typeof doc.metadata.name !== 'string') return [];
      const config = isJsonObject(doc.spec.config) ? doc.spec.config : {};
      return [{ name: doc.metadata.name, entryPath: join(BASE_PACKAGE_DIR, String(doc.spec.entry)), config }];
    });
}

describe('built-in extensions reject unknown config keys', () => {
  const extensions = builtinExtensions();

  test('all of them are covered', () => {
    expect(extensions.map((e) => e.name)).toEqual(expect.arrayContaining(['context-message', 'message-window', 'logging', 'mcp', 'tool-policy', 'tool-search']));
  });

  for (const extension of extensions) {
    test(`${extension.name}: an unknown key fails the start, naming the extension and the key`, async () => {
      const plan = makePlan({ systemPrompt: 'P.', extensions: [{ name: extension.name, packageName: '@goondan/base', entryPath: extension.entryPath, config: { ...extension.config, bogusSetting: true } }] });
      const start = engines.start(plan);
      await expect(start).rejects.toThrow(new RegExp(`${extension.name}[\\s\\S]*unknown (key|field) "bogusSetting"`));
    });
  }
});
