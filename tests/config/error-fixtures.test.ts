/**
 * One fixture per problem code (tests/fixtures/bundles/errors/<case>/): each YAML file states
 * the problems it must produce with `# expect: CODE line=N path=P`.
 */
import { describe, expect, test } from 'bun:test';
import { loadBundle } from '../../shared/config/index.ts';
import { PROBLEM_CODES } from '../../shared/config/problem-codes.ts';
import { errorFixtures } from './fixture-expectations.ts';

/** Codes that no static fixture can produce; each is tested where named. */
const TESTED_ELSEWHERE: Record<string, string> = {
  E_CONFIG_NOT_FOUND: 'loading.test.ts (nothing at PATH) and cli/validate.test.ts (exit 3)',
  E_CONFIG_READ_FAILED: 'loading.test.ts (a dangling symlink named agents.yaml)',
  E_CONFIG_FILE_TOO_LARGE: 'loading.test.ts (a generated 1 MB file)',
  E_CONFIG_AMBIGUOUS_REF: 'refs.test.ts (needs two non-base packages besides the referrer\'s)',
  E_CONFIG_ENV_FILE_NOT_FOUND: 'env.test.ts (loadEnv with a missing --env-file)',
  E_CONFIG_SWARM_NOT_FOUND: 'plans.test.ts (selectSwarm / buildSwarmPlan)',
  E_CONFIG_AGENT_NOT_IN_SWARM: 'plans.test.ts (buildAgentPlan)',
};

const fixtures = errorFixtures();

describe('every problem code has a fixture (or a named test)', () => {
  test('each code appears in an expectation or in TESTED_ELSEWHERE', () => {
    const covered = new Set(fixtures.flatMap((f) => f.expectations.map((e) => e.code)));
    const uncovered = Object.keys(PROBLEM_CODES).filter((code) => !covered.has(code) && !(code in TESTED_ELSEWHERE));
    expect(uncovered).toEqual([]);
  });

  test('fixtures name only codes that exist', () => {
    const unknown = fixtures.flatMap((f) => f.expectations.map((e) => e.code)).filter((code) => !(code in PROBLEM_CODES));
    expect(unknown).toEqual([]);
  });
});

describe('error fixtures report code, file, line and path', () => {
  for (const fixture of fixtures) {
    test(fixture.name, async () => {
      expect(fixture.expectations.length).toBeGreaterThan(0);
      // env {}: the env-missing fixture must not depend on the machine's environment.
      const bundle = await loadBundle(fixture.dir, { env: {} });
      const problems = [...bundle.errors, ...bundle.warnings].filter((p) => p.file.startsWith(fixture.dir));
      for (const want of fixture.expectations) {
        const match = problems.find((p) => p.code === want.code && p.file === want.file && p.line === want.line && p.path === want.path);
        if (!match) {
          const seen = problems.map((p) => `${p.code} ${p.file}:${p.line} path=${p.path}`).join('\n  ');
          throw new Error(`expected ${want.code} at ${want.file}:${want.line} path=${want.path}\nbut got:\n  ${seen}`);
        }
        expect(match.column).toBeGreaterThan(0);
        expect(match.message.length).toBeGreaterThan(0);
      }
      // Nothing else is wrong in the fixture: it isolates its rule.
      const unexpected = problems.filter((p) => !fixture.expectations.some((e) => e.code === p.code && e.line === p.line && e.file === p.file));
      expect(unexpected).toEqual([]);
    });
  }
});
