/**
 * `goondan init` as a user runs it: for each template, the written bundle validates, answers
 * `goondan run --input` offline (real daemon, real agent processes, the mock model) and its own
 * `bun test` passes; existing files are never overwritten without --force.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { BUNDLE_TEMPLATES } from '../../orchestrator/cli/init/template-catalog.ts';
import { goondan, REPO_ROOT } from './goondan-cli.ts';

const work = mkdtempSync(join(tmpdir(), 'goondan-init-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every conversation under a state root, for a failure's message. */
function conversations(stateRoot: string): string[] {
  return [...new Bun.Glob('**/*.jsonl').scanSync({ cwd: stateRoot, dot: true })].map((file) => `${file}:\n${readFileSync(join(stateRoot, file), 'utf8')}`);
}

/** What each template's scripted model answers to its sample input. */
const ANSWERS: Record<string, string> = {
  minimal: '"the quick brown fox" has 4 words.',
  'multi-agent': [
    'Here is what the researcher found about the moon:',
    '- the moon is the topic I was given.',
    '- This answer is scripted: no model was called.',
    '- A real model would research the moon here.',
  ].join('\n'),
  coder: 'I wrote hello.sh and ran it. It printed: Hello, world!',
  mcp: 'The MCP server reversed it: dlrow olleh',
};

describe('every template: init → validate → run --input → bun test', () => {
  test('there is an expected answer for each template', () => {
    expect(Object.keys(ANSWERS).sort()).toEqual(BUNDLE_TEMPLATES.map((t) => t.name).sort());
  });

  for (const template of BUNDLE_TEMPLATES) {
    test(`${template.name}`, async () => {
      const dir = `bundle-${template.name}`;
      const init = await goondan(['init', dir, '--template', template.name], { cwd: work });
      expect(init).toMatchObject({ code: 0, stderr: '' });
      // The next two commands, exactly as they can be pasted.
      expect(init.stdout).toContain(`Next:\n  goondan validate ${dir}\n  goondan run ${dir} --input ${JSON.stringify(template.sampleInput)}`);

      const validate = await goondan(['validate', dir], { cwd: work });
      expect({ code: validate.code, out: validate.stdout }).toEqual({ code: 0, out: expect.stringContaining('✓ valid') });

      const stateRoot = join(work, `state-${template.name}`);
      const run = await goondan(['run', dir, '--input', template.sampleInput, '--state-root', stateRoot, '--port', '0'], { cwd: work });
      const answer = run.stdout.trim();
      const expected = ANSWERS[template.name] ?? '';
      // A wrong answer shows the run's log and the conversation (the coder's was once "It printed:" and nothing).
      const why = answer === expected ? undefined : { stderr: run.stderr, conversation: conversations(stateRoot) };
      expect({ code: run.code, answer, why }).toEqual({ code: 0, answer: expected, why: undefined });

      const ownTests = Bun.spawnSync([process.execPath, 'test'], { cwd: join(work, dir), stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
      expect({ code: ownTests.exitCode, output: ownTests.stderr.toString() }).toEqual({ code: 0, output: expect.stringMatching(/\b[1-9]\d* pass\b[\s\S]*\b0 fail\b/) });
    });
  }
});

describe('what a new bundle holds', () => {
  const dir = join(work, 'inspect');

  test('a prompt, a tool with its test, .env.example, .gitignore, and a commented real-provider Model', async () => {
    expect((await goondan(['init', dir])).code).toBe(0);
    for (const file of ['goondan.yaml', 'prompts/assistant.md', 'tools/word-count/index.ts', 'tools/word-count/index.test.ts', '.env.example', '.gitignore']) {
      expect({ file, exists: existsSync(join(dir, file)) }).toEqual({ file, exists: true });
    }
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toContain('.env\n');
    const yaml = readFileSync(join(dir, 'goondan.yaml'), 'utf8');
    expect(yaml).toContain('  provider: mock');
    expect(yaml).toMatch(/^# kind: Model\n# metadata:\n#   name: gpt\n# spec:\n#   provider: openai/m);
    expect(yaml).toContain('#   apiKey: { valueFrom: { env: OPENAI_API_KEY } }');
  });

  test('every YAML document opens with the $schema modeline, pointing at the published schema', () => {
    const yaml = readFileSync(join(dir, 'goondan.yaml'), 'utf8');
    const documents = yaml.split(/^---$/m);
    expect(documents.length).toBeGreaterThan(3);
    for (const [index, document] of documents.entries()) {
      const modeline = document.trimStart().match(/^# yaml-language-server: \$schema=(\S+)\n/);
      expect({ index, modeline: modeline !== null }).toEqual({ index, modeline: true });
      expect(resolve(dirname(join(dir, 'goondan.yaml')), modeline?.[1] ?? '')).toBe(join(REPO_ROOT, 'schemas', 'goondan.schema.json'));
    }
  });

  test('the package and swarm are named after the directory', () => {
    const yaml = readFileSync(join(dir, 'goondan.yaml'), 'utf8');
    expect(yaml).toContain('kind: Package\nmetadata:\n  name: inspect\n');
    expect(yaml).toContain('kind: Swarm\nmetadata:\n  name: inspect\n');
  });
});

describe('existing files are never overwritten without --force', () => {
  test('a second init refuses (exit 2), names the files and writes nothing; --force overwrites', async () => {
    const dir = join(work, 'twice');
    expect((await goondan(['init', dir])).code).toBe(0);
    const prompt = join(dir, 'prompts', 'assistant.md');
    writeFileSync(prompt, 'my own prompt\n');
    writeFileSync(join(dir, 'notes.txt'), 'unrelated\n');

    const again = await goondan(['init', dir, '--template', 'minimal']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already has .env.example, .gitignore, goondan.yaml, prompts/assistant.md');
    expect(again.stderr).toContain('nothing was written');
    expect(again.stderr).toContain('--force');
    expect(readFileSync(prompt, 'utf8')).toBe('my own prompt\n');

    const forced = await goondan(['init', dir, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('prompts/assistant.md  (overwritten)');
    expect(readFileSync(prompt, 'utf8')).not.toBe('my own prompt\n');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('unrelated\n');
  });

  test('a directory with other files only is fine', async () => {
    const dir = mkdtempSync(join(work, 'project-'));
    writeFileSync(join(dir, 'README.md'), '# mine\n');
    expect((await goondan(['init', dir])).code).toBe(0);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# mine\n');
  });
});

describe('usage errors (exit 2)', () => {
  test('an unknown template lists the known ones', async () => {
    const run = await goondan(['init', join(work, 'x'), '--template', 'huge']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown template 'huge'; choose one of: minimal, multi-agent, coder, mcp");
  });

  test('DIR that is a file', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    const run = await goondan(['init', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('exists and is not a directory');
  });

  test('goondan --help lists init; goondan init --help lists the templates', async () => {
    expect((await goondan(['--help'])).stdout).toMatch(/^ {2}init +write a new bundle/m);
    const help = await goondan(['init', '--help']);
    for (const template of BUNDLE_TEMPLATES) expect(help.stdout).toContain(`${template.name}  `);
  });
});
