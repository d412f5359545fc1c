/**
 * `goondan init [DIR] [--template NAME] [--force]`: writes a bundle that validates and runs
 * offline at once, then prints the two commands that show it. Files the template would write
 * that already exist are never overwritten without --force; other files in DIR are never touched.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type CliCommand, type CliIo, UsageError, parseOptions } from '../command.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { BUNDLE_TEMPLATES, DEFAULT_TEMPLATE, findTemplate } from '../init/template-catalog.ts';
import { renderTemplate } from '../init/template-files.ts';
import { shellWord } from '../shell-word.ts';

const width = Math.max(...BUNDLE_TEMPLATES.map((t) => t.name.length));
const usage = `Usage: goondan init [DIR] [options]

Write a new bundle into DIR (default .; created if missing) that validates and runs offline at
once: a scripted mock model (a real provider's Model commented beside it), a prompt, a tool of
its own with its test (bun test), .env.example and .gitignore.

Options:
  -t, --template NAME  the kind of bundle (default ${DEFAULT_TEMPLATE}):
${BUNDLE_TEMPLATES.map((t) => `                         ${t.name.padEnd(width)}  ${t.summary}`).join('\n')}
  -f, --force          overwrite files of DIR that the template also writes
  -h, --help           show this help

Exit codes: 0 written · 1 a file could not be written · 2 usage, or DIR already holds a file the
template would write (nothing is written; pass --force or choose another DIR)`;

interface InitOptions {
  dir: string;
  template: string;
  force: boolean;
}

function parseInitArgs(argv: string[]): InitOptions {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { template: { type: 'string', short: 't' }, force: { type: 'boolean', short: 'f' } },
  });
  if (positionals.length > 1) throw new UsageError(`expected at most one DIR, got ${positionals.length}: ${positionals.join(' ')}`);
  const template = values.template ?? DEFAULT_TEMPLATE;
  if (!findTemplate(template)) throw new UsageError(`unknown template '${template}'; choose one of: ${BUNDLE_TEMPLATES.map((t) => t.name).join(', ')}`);
  return { dir: positionals[0] ?? '.', template, force: values.force === true };
}

async function run(argv: string[], io: CliIo): Promise<ExitCode> {
  const options = parseInitArgs(argv);
  const target = resolve(options.dir);
  if (existsSync(target) && !statSync(target).isDirectory()) {
    io.stderr(`goondan init: ${options.dir} exists and is not a directory\n  hint: choose a directory (it is created if missing)`);
    return EXIT.usage;
  }
  const files = renderTemplate(options.template, target);
  const existing = files.filter((f) => existsSync(join(target, f.path))).map((f) => f.path);
  if (existing.length > 0 && !options.force) {
    io.stderr(`goondan init: ${options.dir} already has ${existing.join(', ')}; nothing was written\n  hint: pass --force to overwrite ${existing.length === 1 ? 'it' : 'them'}, or choose another directory`);
    return EXIT.usage;
  }
  try {
    for (const file of files) {
      const path = join(target, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content);
    }
  } catch (error) {
    io.stderr(`goondan init: cannot write into ${target}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.runtimeError;
  }
  const template = findTemplate(options.template);
  const dir = shellWord(options.dir);
  io.stdout(
    [
      `Created a '${options.template}' bundle in ${options.dir}${template ? `: ${template.summary}` : ''}`,
      ...files.map((f) => `  ${f.path}${existing.includes(f.path) ? '  (overwritten)' : ''}`),
      '',
      'Next:',
      `  goondan validate ${dir}`,
      `  goondan run ${dir} --input ${JSON.stringify(template?.sampleInput ?? 'hello')}`,
    ].join('\n'),
  );
  return EXIT.ok;
}

export const initCommand: CliCommand = { name: 'init', summary: 'write a new bundle that runs offline at once (from a template)', usage, run };
