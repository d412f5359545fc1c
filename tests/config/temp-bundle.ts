/** Writes throw-away bundles under os.tmpdir() for tests. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempBundle {
  dir: string;
  write(relativePath: string, text: string): string;
  remove(): void;
}

export function tempBundle(files: Record<string, string> = {}): TempBundle {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-config-'));
  const bundle: TempBundle = {
    dir,
    write(relativePath, text) {
      const path = join(dir, relativePath);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  for (const [path, text] of Object.entries(files)) bundle.write(path, text);
  return bundle;
}

export const MOCK_MODEL = `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: m }
spec: { provider: mock, model: m1 }
`;

/** A swarm running the one agent \`a\`: a bundle with agents and no Swarm is invalid (nothing to run). */
export const SWARM_OF_A = `apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: s }
spec: { entryAgent: Agent/a, agents: [Agent/a] }
`;
