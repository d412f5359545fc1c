/**
 * What systemd units and containers rely on: configuration by flags and environment
 * (GOONDAN_STATE_ROOT, --env-file), exit codes, one-shot runs, SIGINT, and a real provider
 * adapter (openai-compatible) against a fake OpenAI server on loopback — with the key kept out of logs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';
import { runtimeFilePath } from '../../shared/state-paths.ts';
import { GOONDAN_BIN, REPO_ROOT, WAIT_MS, startDaemon, tempStateRoot, waitUntil } from './daemon-harness.ts';
import { streamed } from '../agent-process/helpers/chat-completion-stream.ts';

const DEMO = join(REPO_ROOT, 'bundles/demo');
const KEY = 'sk-test-do-not-log-7f3a';
let llm: Server<undefined>;
const seen: Array<{ authorization: string | null; body: Record<string, unknown> }> = [];
let bundle: string;

beforeAll(() => {
  llm = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      const body = (await request.json()) as Record<string, unknown>;
      seen.push({ authorization: request.headers.get('authorization'), body });
      const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role: string; content: unknown }>) : [];
      const last = messages.at(-1);
      const completion = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'fake-model-1',
        choices: [{ index: 0, message: { role: 'assistant', content: `remote says: ${String(last?.content)}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
      };
      // Like the real API: server-sent chunks when the request asks for a stream.
      return body.stream === true ? streamed(completion) : Response.json(completion);
    },
  });
  bundle = mkdtempSync(join(tmpdir(), 'goondan-remote-'));
  cpSync(join(REPO_ROOT, 'tests/fixtures/e2e/remote-model'), bundle, { recursive: true });
  const file = join(bundle, 'goondan.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('http://127.0.0.1:1/v1', `http://127.0.0.1:${llm.port}/v1`));
});
afterAll(() => {
  llm.stop(true);
  rmSync(bundle, { recursive: true, force: true });
});

async function goondan(args: string[], env: Record<string, string | undefined> = {}) {
  const proc = Bun.spawn([GOONDAN_BIN, ...args], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...env } });
  const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
  return { out, err, code };
}

describe('configuration by flags, environment and env files', () => {
  test('--env-file provides the API key; the real openai-compatible adapter reaches the server; the key never appears in logs', async () => {
    const envDir = mkdtempSync(join(tmpdir(), 'goondan-env-'));
    const envFile = join(envDir, 'service.env');
    writeFileSync(envFile, `# keys for the service\nFAKE_LLM_KEY="${KEY}"\n`);
    const daemon = await startDaemon(bundle, { args: ['--env-file', envFile] });
    try {
      const { body } = await daemon.send({ input: 'ping' });
      expect(body).toMatchObject({ status: 'ok', output: 'remote says: ping' });
      expect(seen.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
      const messages = seen.at(-1)?.body.messages as Array<{ role: string; content: string }>;
      // The system prompt reaches the provider (the reference dropped system messages, SPEC.md §9.8).
      expect(messages[0]?.role).toBe('system');
      expect(messages[0]?.content).toStartWith('You are terse.');
      const logText = JSON.stringify(daemon.logs);
      expect(logText).not.toContain(KEY);
    } finally {
      await daemon.stop();
      daemon.cleanup();
      rmSync(envDir, { recursive: true, force: true });
    }
  });

  test('a missing required key (an openai Model) fails the start with exit 4 naming the variable', async () => {
    const strict = mkdtempSync(join(tmpdir(), 'goondan-strict-'));
    const yaml = readFileSync(join(bundle, 'goondan.yaml'), 'utf8').replace('provider: openai-compatible', 'provider: openai');
    writeFileSync(join(strict, 'goondan.yaml'), yaml);
    const env: Record<string, string | undefined> = { ...process.env, FAKE_LLM_KEY: undefined, OPENAI_API_KEY: undefined };
    const proc = Bun.spawn([GOONDAN_BIN, 'run', strict, '--port', '0', '--state-root', tempStateRoot()], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env });
    // A daemon that wrongly keeps running is ended, and the exit-code check below fails.
    const timer = setTimeout(() => proc.kill('SIGKILL'), WAIT_MS);
    const [err, code] = [await new Response(proc.stderr).text(), await proc.exited];
    clearTimeout(timer);
    expect(code).toBe(4);
    expect(err).toContain('FAKE_LLM_KEY');
    rmSync(strict, { recursive: true, force: true });
  });

  test('GOONDAN_STATE_ROOT is honoured without --state-root; the runtime file appears and is removed on exit', async () => {
    const stateRoot = tempStateRoot();
    const proc = Bun.spawn([GOONDAN_BIN, 'run', DEMO, '--port', '0'], {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, GOONDAN_STATE_ROOT: stateRoot },
    });
    const runtimeFile = runtimeFilePath(stateRoot, 'demo');
    await waitUntil(() => existsSync(runtimeFile), `the runtime file ${runtimeFile}`);
    const info = JSON.parse(readFileSync(runtimeFile, 'utf8')) as { pid: number; apiUrl: string };
    expect(info.pid).toBe(proc.pid);
    expect((await fetch(`${info.apiUrl}/healthz`)).status).toBe(200);
    proc.kill('SIGINT');
    expect(await proc.exited).toBe(0);
    expect(existsSync(runtimeFile)).toBe(false);
    rmSync(stateRoot, { recursive: true, force: true });
  });

  test('a second daemon for the same swarm and state root refuses to start', async () => {
    const daemon = await startDaemon(DEMO);
    try {
      const second = await goondan(['run', DEMO, '--port', '0', '--state-root', daemon.stateRoot]);
      expect(second.code).toBe(1);
      expect(second.err).toContain('already running');
    } finally {
      await daemon.stop();
      daemon.cleanup();
    }
  });
});

describe('exit codes and one-shot runs', () => {
  test('--input prints only the reply on stdout and exits 0', async () => {
    const stateRoot = tempStateRoot();
    const result = await goondan(['run', DEMO, '--port', '0', '--state-root', stateRoot, '--input', 'Please write a haiku about autumn.']);
    expect(result.code).toBe(0);
    expect(result.out).toStartWith('Here is a haiku about autumn:');
    expect(result.out).toContain('The reviewer says: Clean 5-7-5');
    expect(result.err).toContain('writer → reviewer  asks:');
    rmSync(stateRoot, { recursive: true, force: true });
  });

  test('nothing to load is exit 3, an invalid bundle exit 4 with file:line, bad flags exit 2', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'goondan-empty-'));
    expect((await goondan(['run', empty, '--port', '0'])).code).toBe(3);
    writeFileSync(join(empty, 'goondan.yaml'), 'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: lonely }\nspec: {}\n');
    const invalid = await goondan(['run', empty, '--port', '0']);
    expect(invalid.code).toBe(4);
    expect(invalid.err).toMatch(/goondan\.yaml:4:\d+\s+E_CONFIG_/);
    expect((await goondan(['run', DEMO, '--port', 'eighty'])).code).toBe(2);
    expect((await goondan(['run', DEMO, '--frobnicate'])).code).toBe(2);
    rmSync(empty, { recursive: true, force: true });
  });
});
