/**
 * `goondan validate [PATH] [--format text|json] [--env-file F]`: loads the bundle, prints every
 * problem (text: `file:line:col  CODE  message` + hint; json: `{valid, errors, warnings}`).
 * Exit 0 valid (warnings allowed), 4 invalid, 3 nothing to load at PATH, 2 bad usage.
 */
import { resolve } from 'node:path';
import { BundleNotFoundError, bundleDirOf, ConfigError, formatHelpPages, formatProblemsText, loadBundle, loadEnv } from '../../../shared/config/index.ts';
import { withHelpUrl } from '../../../shared/error-help.ts';
import type { ConfigProblem } from '../../../shared/types/bundle.ts';
import { type CliCommand, type CliIo, UsageError, parseOptions } from '../command.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';

const usage = `Usage: goondan validate [PATH] [options]

Check a bundle (a directory holding goondan.yaml or resource files such as agents.yaml, or one
YAML file; default .) together with the built-in @goondan/base package, and report every problem.

Options:
      --format text|json  output format (default text); json prints {valid, errors, warnings}
      --env-file FILE     environment file used to check that referenced variables are set
  -h, --help              show this help

Missing environment variables are warnings, so a bundle can be validated without its keys.
Exit codes: 0 valid · 2 usage · 3 nothing to load at PATH · 4 invalid bundle`;

interface ValidateOptions {
  path: string;
  format: 'text' | 'json';
  envFile?: string;
}

function parseValidateArgs(argv: string[]): ValidateOptions {
  const parsed = parseOptions({
      args: argv,
      allowPositionals: true,
      options: { format: { type: 'string' }, 'env-file': { type: 'string' } },
    });
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`expected at most one PATH, got ${positionals.length}: ${positionals.join(' ')}`);
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`);
  const options: ValidateOptions = { path: positionals[0] ?? '.', format };
  if (values['env-file'] !== undefined) options.envFile = values['env-file'];
  return options;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function printJson(io: CliIo, valid: boolean, errors: ConfigProblem[], warnings: ConfigProblem[]): void {
  io.stdout(JSON.stringify({ valid, errors, warnings }, null, 2));
}

export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'check a bundle and report every problem with file:line',
  usage,
  async run(argv: string[], io: CliIo): Promise<ExitCode> {
    const options = parseValidateArgs(argv);
    const target = resolve(options.path);
    const cwd = process.cwd();
    let env: Record<string, string>;
    try {
      env = loadEnv({ bundleDir: bundleDirOf(target), ...(options.envFile ? { envFile: options.envFile } : {}), processEnv: process.env });
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      if (options.format === 'json') printJson(io, false, error.problems, []);
      else io.stderr(formatProblemsText(error.problems, cwd));
      return EXIT.usage;
    }

    let bundle;
    try {
      bundle = await loadBundle(target, { env });
    } catch (error) {
      if (!BundleNotFoundError.isInstance(error)) throw error;
      const problem = withHelpUrl<ConfigProblem>({ code: error.code, message: error.message, file: error.path, line: 1, column: 1, path: '', suggestion: error.suggestion });
      if (options.format === 'json') printJson(io, false, [problem], []);
      else io.stderr(`goondan validate: ${error.message}\n  hint: ${error.suggestion}`);
      return EXIT.configNotFound;
    }

    const valid = bundle.errors.length === 0;
    if (options.format === 'json') {
      printJson(io, valid, bundle.errors, bundle.warnings);
    } else {
      const sections: string[] = [];
      if (bundle.errors.length > 0) sections.push(formatProblemsText(bundle.errors, cwd));
      if (bundle.warnings.length > 0) sections.push(`warnings:\n${formatProblemsText(bundle.warnings, cwd)}`);
      const help = formatHelpPages([...bundle.errors, ...bundle.warnings]);
      if (help !== undefined) sections.push(help);
      const userResources = bundle.resources.filter((r) => r.packageName === bundle.packageName).length;
      const summary = valid
        ? `✓ valid: ${plural(userResources, 'resource')}${bundle.warnings.length > 0 ? `, ${plural(bundle.warnings.length, 'warning')}` : ''}`
        : `✗ invalid: ${plural(bundle.errors.length, 'error')}${bundle.warnings.length > 0 ? `, ${plural(bundle.warnings.length, 'warning')}` : ''}`;
      sections.push(summary);
      io.stdout(sections.join('\n\n'));
    }
    return valid ? EXIT.ok : EXIT.invalidBundle;
  },
};
