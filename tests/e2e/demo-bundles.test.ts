/** The shipped demo bundles run offline, exactly as the README shows them. */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startForecastServer } from '../../bundles/http-demo/forecast-server.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import { GOONDAN_BIN, REPO_ROOT, readRuntimeEvents, tempStateRoot } from './daemon-harness.ts';

async function oneShot(bundle: string, stateRoot: string, input: string) {
  const proc = Bun.spawn([GOONDAN_BIN, 'run', resolve(REPO_ROOT, bundle), '--port', '0', '--state-root', stateRoot, '--input', input], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
  return { out: out.trim(), err, code };
}

describe('bundles/coder: a coding agent under a tool policy', () => {
  test('writes and runs a script (allowed by rules), and is refused a delete (denied by rule)', async () => {
    const stateRoot = tempStateRoot();
    try {
      const hello = await oneShot('bundles/coder', stateRoot, 'Create a hello world script and run it.');
      expect(hello.code).toBe(0);
      expect(hello.out).toBe('I wrote hello.sh and ran it. It printed: Hello, world from workspace!');
      const script = join(instancePaths(stateRoot, 'coder', 'coder', 'default').workdir, 'hello.sh');
      expect(readFileSync(script, 'utf8')).toContain('echo "Hello, world');
      const cleanup = await oneShot('bundles/coder', stateRoot, 'Please clean up.');
      expect(cleanup.out).toContain('E_TOOL_DENIED');
      expect(cleanup.out).toContain('the demo never deletes files');
      expect(readFileSync(script, 'utf8')).toContain('Hello');
    } finally {
      rmSync(stateRoot, { recursive: true, force: true });
    }
  });
});

describe('bundles/http-demo: an HTTP tool declared in YAML, with display metadata', () => {
  test('the agent answers from the stand-in weather service on loopback; tool.called shows the summary', async () => {
    // The demo's own service, on a free port: the bundle is copied with its base URL pointed there.
    const server = startForecastServer(0);
    const bundle = mkdtempSync(join(tmpdir(), 'goondan-http-demo-'));
    const stateRoot = tempStateRoot();
    try {
      const yaml = readFileSync(join(REPO_ROOT, 'bundles/http-demo/goondan.yaml'), 'utf8');
      expect(yaml).toContain('baseUrl: http://127.0.0.1:8787');
      writeFileSync(join(bundle, 'goondan.yaml'), yaml.replace('http://127.0.0.1:8787', `http://127.0.0.1:${server.port}`));
      const run = await oneShot(bundle, stateRoot, "What's the weather in Seoul?");
      expect({ code: run.code, out: run.out }).toEqual({ code: 0, out: 'Seoul: clear skies, a cold wind from the north-west, between -2 and 7 °C.' });
      const events = await readRuntimeEvents(stateRoot, 'http-demo', 'forecaster', 'default');
      expect(events.find((e) => e.type === 'tool.called')).toMatchObject({ toolName: 'weather__forecast', summary: 'Forecast for Seoul', displayName: 'Weather', icon: '🌦️' });
      const unknown = await oneShot(bundle, stateRoot, 'And the weather in Atlantis?');
      expect(unknown.out).toContain('E_TOOL_HTTP');
      expect(unknown.out).toContain('404');
    } finally {
      server.stop(true);
      rmSync(bundle, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    }
  });
});
