/**
 * Reads `# expect: CODE line=N path=P [file=F]` comments from the error fixtures. `file` (relative
 * to the fixture) is where the problem points when that is not the YAML file itself, e.g. a module.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES_DIR = join(import.meta.dir, '..', 'fixtures', 'bundles');
export const ERROR_FIXTURES_DIR = join(FIXTURES_DIR, 'errors');

export interface Expectation {
  code: string;
  file: string;
  line: number;
  path: string;
}

const EXPECT = /^# expect: (E_[A-Z_]+) line=(\d+) path=(\S*)(?: file=(\S+))?$/gm;

export function errorFixtures(): Array<{ name: string; dir: string; expectations: Expectation[] }> {
  return readdirSync(ERROR_FIXTURES_DIR)
    .sort()
    .map((name) => {
      const dir = join(ERROR_FIXTURES_DIR, name);
      const expectations = readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .flatMap((f) =>
          [...readFileSync(join(dir, f), 'utf8').matchAll(EXPECT)].map((m) => ({
            code: m[1] ?? '',
            line: Number(m[2]),
            path: m[3] ?? '',
            file: join(dir, m[4] ?? f),
          })),
        );
      return { name, dir, expectations };
    });
}
