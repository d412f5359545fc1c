/** `goondan validate` as a user runs it: the real bin/goondan in a subprocess. */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliRun, REPO_ROOT, goondan } from './goondan-cli.ts';


const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'bundles');

interface JsonReport {
  valid: boolean;
  errors: Array<{ code: string; file: string; line: number; column: number; path: string; message: string; suggestion?: string; helpUrl?: string }>;
  warnings: Array<{ code: string }>;
}

function isReport(value: unknown): value is JsonReport {
  return typeof value === 'object' && value !== null && 'valid' in value && 'errors' in value && 'warnings' in value;
}

function report(run: CliRun): JsonReport {
  const parsed: unknown = JSON.parse(run.stdout);
  if (!isReport(parsed)) throw new Error(`not a validate report: ${run.stdout}`);
  return parsed;
}

let temp: string | undefined;
afterEach(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

describe('exit codes', () => {
  test('0 for a valid bundle, with a summary line', async () => {
    const run = await goondan(['validate', join(FIXTURES, 'all-kinds')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('✓ valid: 9 resources');
  });

  test('4 for an invalid bundle; text lists file:line:col  CODE  message and the hint, paths relative to cwd', async () => {
    const run = await goondan(['validate', 'tests/fixtures/bundles/errors/ref-not-found']);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain('tests/fixtures/bundles/errors/ref-not-found/agents.yaml:17:12  E_CONFIG_REF_NOT_FOUND  spec.tools[0].ref: Tool/bsh not found');
    expect(run.stdout).toContain('  hint: did you mean "Tool/bash"?');
    expect(run.stdout).toContain('✗ invalid: 1 error');
    expect(run.stdout).toContain(`codes explained in: ${join(REPO_ROOT, 'docs', 'errors', 'config.md')}`);
  });

  test('3 when there is nothing to load at PATH', async () => {
    temp = mkdtempSync(join(tmpdir(), 'goondan-cli-'));
    const run = await goondan(['validate'], { cwd: temp });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('no goondan.yaml');
  });

  test('2 for bad usage', async () => {
    expect((await goondan(['validate', '--format', 'xml'])).code).toBe(2);
    expect((await goondan(['validate', 'a', 'b'])).code).toBe(2);
    expect((await goondan(['validate', '--nope'])).code).toBe(2);
  });
});

describe('a broken tool module fails validate (and run) at once, naming the module', () => {
  const broken = join(FIXTURES, 'errors', 'tool-handlers-missing');

  test('validate: exit 4, E_TOOL_HANDLERS_MISSING at the entry module, with the fix', async () => {
    const run = await goondan(['validate', broken, '--format', 'json']);
    expect(run.code).toBe(4);
    const { errors } = report(run);
    expect(errors).toEqual([expect.objectContaining({ code: 'E_TOOL_HANDLERS_MISSING', file: join(broken, 'index.ts'), line: 1, path: 'spec.entry' })]);
    expect(errors[0]?.suggestion).toContain('export const handlers = {');
  });

  test('run --input: exit 4 with the same problem instead of a hanging start', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'goondan-cli-'));
    try {
      const run = await goondan(['run', broken, '--port', '0', '--state-root', temp, '--input', 'hi']);
      expect(run.code).toBe(4);
      expect(run.stderr).toContain('index.ts:1:1  E_TOOL_HANDLERS_MISSING');
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

describe('--format json', () => {
  test('prints {valid, errors, warnings} with full problem objects', async () => {
    const run = await goondan(['validate', join(FIXTURES, 'errors', 'schema-invalid'), '--format', 'json']);
    expect(run.code).toBe(4);
    const { valid, errors } = report(run);
    expect(valid).toBe(false);
    expect(errors.map((e) => [e.code, e.line, e.path])).toEqual([
      ['E_CONFIG_SCHEMA_INVALID', 6, 'spec.model'],
      ['E_CONFIG_SCHEMA_INVALID', 7, 'spec.provider'],
    ]);
    expect(errors[1]).toMatchObject({
      file: join(FIXTURES, 'errors', 'schema-invalid', 'goondan.yaml'),
      column: 13,
      suggestion: 'did you mean "openai"?',
      helpUrl: 'docs/errors/config.md#e_config_schema_invalid',
    });
  });

  test('a valid bundle without its keys is valid, with env warnings', async () => {
    const run = await goondan(['validate', join(FIXTURES, 'upstream-style'), '--format=json']);
    expect(run.code).toBe(0);
    const { valid, warnings } = report(run);
    expect(valid).toBe(true);
    expect(warnings.filter((w) => w.code === 'E_CONFIG_ENV_MISSING')).toHaveLength(2);
  });

  test('--env-file supplies variables (and silences their warnings)', async () => {
    temp = mkdtempSync(join(tmpdir(), 'goondan-cli-'));
    const envFile = join(temp, 'keys.env');
    writeFileSync(envFile, 'ANTHROPIC_API_KEY=sk-test\nGOONDAN_SECRET_WEBHOOK_SIGNING_SECRET="s3cret"\n');
    const run = await goondan(['validate', join(FIXTURES, 'upstream-style'), '--format', 'json', '--env-file', envFile]);
    expect(run.code).toBe(0);
    expect(report(run).warnings.filter((w) => w.code === 'E_CONFIG_ENV_MISSING')).toEqual([]);
  });

  test('an upstream-style bundle with Telegram and Slack (telegram-polling, slack, their tools, prompts.systemRef) validates unchanged', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-test', TELEGRAM_BOT_TOKEN: '1:tg', SLACK_SIGNING_SECRET: 'sign' };
    const run = await goondan(['validate', join(FIXTURES, 'upstream-chat'), '--format', 'json'], { env });
    expect(run.code).toBe(0);
    expect(report(run)).toMatchObject({ valid: true, errors: [], warnings: [] });
  });

  test('nothing to load is reported as JSON too, exit 3', async () => {
    const run = await goondan(['validate', '/no/such/bundle', '--format', 'json']);
    expect(run.code).toBe(3);
    expect(report(run).errors.map((e) => e.code)).toEqual(['E_CONFIG_NOT_FOUND']);
  });
});

describe('help', () => {
  test('goondan --help lists validate; goondan validate --help prints its usage', async () => {
    const global = await goondan(['--help']);
    expect(global.code).toBe(0);
    expect(global.stdout).toMatch(/validate\s+check a bundle/);
    const own = await goondan(['validate', '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('Usage: goondan validate [PATH]');
    expect(own.stdout).toContain('--format text|json');
  });
});
