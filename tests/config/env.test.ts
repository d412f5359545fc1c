/** Env files and precedence (SPEC.md §1.1): --env-file > .env.local > .env > OS env. */
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ConfigError, loadEnv, parseDotenv, secretEnvName } from '../../shared/config/index.ts';
import { type TempBundle, tempBundle } from './temp-bundle.ts';

describe('dotenv parsing', () => {
  test('KEY=value, export, comments, quotes and escapes', () => {
    const text = [
      '# a comment',
      'PLAIN=value',
      'export EXPORTED = spaced value # trailing comment',
      'DOUBLE="line1\\nline2 \\"quoted\\" # kept"',
      "SINGLE='literal $HOME \\n # kept'",
      'MULTI="first',
      'second"',
      'EMPTY=',
      'HASH=a#b',
      'not a line',
    ].join('\n');
    expect(parseDotenv(text)).toEqual({
      PLAIN: 'value',
      EXPORTED: 'spaced value',
      DOUBLE: 'line1\nline2 "quoted" # kept',
      SINGLE: 'literal $HOME \\n # kept',
      MULTI: 'first\nsecond',
      EMPTY: '',
      HASH: 'a#b',
    });
  });

  test('CRLF line endings are accepted', () => {
    expect(parseDotenv('A=1\r\nB="2"\r\n')).toEqual({ A: '1', B: '2' });
  });
});

let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());

describe('loadEnv precedence', () => {
  test('--env-file > .env.local > .env > OS env', () => {
    bundle = tempBundle({
      '.env': 'A=dotenv\nB=dotenv\nC=dotenv\n',
      '.env.local': 'B=local\nC=local\n',
      'custom.env': 'C=file\n',
    });
    const env = loadEnv({ bundleDir: bundle.dir, envFile: join(bundle.dir, 'custom.env'), processEnv: { A: 'os', D: 'os', U: undefined } });
    expect([env.A, env.B, env.C, env.D]).toEqual(['dotenv', 'local', 'file', 'os']);
    expect('U' in env).toBe(false);
  });

  test('without env files the OS environment passes through', () => {
    bundle = tempBundle();
    expect(loadEnv({ bundleDir: bundle.dir, processEnv: { X: '1' } })).toEqual({ X: '1' });
  });

  test('a missing --env-file is a ConfigError E_CONFIG_ENV_FILE_NOT_FOUND', () => {
    bundle = tempBundle();
    try {
      loadEnv({ bundleDir: bundle.dir, envFile: join(bundle.dir, 'nope.env'), processEnv: {} });
      throw new Error('expected a ConfigError');
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      expect(error.problems.map((p) => p.code)).toEqual(['E_CONFIG_ENV_FILE_NOT_FOUND']);
    }
  });
});

describe('secret names', () => {
  test('Secret/<name> + key → GOONDAN_SECRET_<NAME>_<KEY>, upper-cased, "-" → "_"', () => {
    expect(secretEnvName('Secret/slack-bot', 'signing-secret')).toBe('GOONDAN_SECRET_SLACK_BOT_SIGNING_SECRET');
  });
});
