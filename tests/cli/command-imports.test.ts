/**
 * A fast CLI (issue 12): `goondan --help` imports no command, and validate, ps and send never load
 * the daemon, the agent engine or the AI SDK. Checked on the static import graph of each module
 * (Bun's bundler lists every module it pulls in), so a new eager import fails here at once.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '../..');

/** The modules (paths relative to the repository) the entry pulls in statically (dynamic imports become other chunks). */
async function staticImports(entry: string): Promise<string[]> {
  const result = await Bun.build({ entrypoints: [join(ROOT, entry)], target: 'bun', root: ROOT, minify: false, splitting: true, throw: false });
  const output = result.outputs.find((o) => o.kind === 'entry-point');
  if (!result.success || !output) throw new Error(`cannot build ${entry}: ${result.logs.map((l) => l.message).join('; ')}`);
  return [...(await output.text()).matchAll(/^\/\/ (\S+\.(?:ts|js|mjs|cjs|json))$/gm)].map((m) => m[1] ?? '');
}

// The daemon's runtime file (where a running daemon is found) is the one module of daemon/ a client reads.
const HEAVY = [/^node_modules\/(ai|@ai-sdk\/[^/]+|zod|pino|hono)\//, /^orchestrator\/daemon\/(?!runtime-file\.ts$)/, /^orchestrator\/process\//, /^agent-process\//];

describe('what each CLI entry loads', () => {
  test('goondan --help (main.ts) imports no command module', async () => {
    const modules = await staticImports('orchestrator/cli/main.ts');
    expect(modules.filter((m) => m.startsWith('orchestrator/cli/commands/') && !m.endsWith('/index.ts'))).toEqual([]);
  });

  for (const command of ['validate', 'ps', 'send']) {
    test(`goondan ${command} loads neither the daemon, the agent engine nor the AI SDK`, async () => {
      const modules = await staticImports(`orchestrator/cli/commands/${command}.ts`);
      expect(modules.length).toBeGreaterThan(2);
      expect(modules.filter((m) => HEAVY.some((pattern) => pattern.test(m)))).toEqual([]);
    });
  }
});
