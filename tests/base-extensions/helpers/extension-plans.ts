/**
 * Plans for the base-extension tests: the real `@goondan/base` entry modules, the fixture
 * extensions and tools of tests/fixtures/base-extensions, and a unique capture key per engine.
 * Engines, swarms, state roots and events come from the engine tests' helpers (imported, not copied).
 */
import { join, resolve } from 'node:path';
import { nanoid } from 'nanoid';
import { DEFAULT_SANDBOX } from '../../../shared/config/sandbox-plan.ts';
import type { ExtensionPlan, ToolPlan } from '../../../shared/types/bundle.ts';
import type { JsonObject } from '../../../shared/types/json.ts';
import { capturedSteps, type CapturedStep } from '../../fixtures/base-extensions/extensions/prompt-capture.ts';

export const REPO = resolve(import.meta.dir, '../../..');
export const BASE_EXTENSIONS = join(REPO, 'bundles/base/extensions');
export const FIXTURES = join(REPO, 'tests/fixtures/base-extensions');

export function baseExtension(name: string, config: JsonObject = {}): ExtensionPlan {
  return { name, packageName: '@goondan/base', entryPath: join(BASE_EXTENSIONS, name, 'index.ts'), config };
}

export function fixtureExtension(name: string, config: JsonObject = {}): ExtensionPlan {
  return { name, packageName: '', entryPath: join(FIXTURES, 'extensions', `${name}.ts`), config };
}

/** The prompt-capture fixture under a fresh key, and the list it fills. */
export function promptCapture(): { plan: ExtensionPlan; steps: CapturedStep[] } {
  const key = `capture-${nanoid(8)}`;
  return { plan: fixtureExtension('prompt-capture', { key }), steps: capturedSteps(key) };
}

export function blobTool(): ToolPlan {
  return {
    name: 'blob',
    packageName: '',
    entryPath: join(FIXTURES, 'tools/blob.ts'),
    errorMessageLimit: 1000,
    config: {},
    sandbox: DEFAULT_SANDBOX,
    exports: [
      {
        name: 'make',
        description: 'Produce a text of the given size.',
        parameters: { type: 'object', additionalProperties: false, properties: { size: { type: 'integer' } }, required: ['size'] },
      },
    ],
  };
}

export function vaultTool(): ToolPlan {
  return {
    name: 'vault',
    packageName: '',
    entryPath: join(FIXTURES, 'tools/vault.ts'),
    errorMessageLimit: 1000,
    config: {},
    sandbox: DEFAULT_SANDBOX,
    exports: [
      {
        name: 'login',
        description: 'Log in to the vault.',
        parameters: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } }, required: ['user', 'password'] },
      },
    ],
  };
}
