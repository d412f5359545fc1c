/** The shipped demo bundles run offline, exactly as the README shows them. */
import { describe, expect, test } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { GOONDAN_BIN, REPO_ROOT, tempStateRoot } from './daemon-harness.ts';

async function oneShot(bundle: string, stateRoot: string, input: string) {
  const proc = Bun.spawn([GOONDAN_BIN, 'run', join(REPO_ROOT, bundle), '--port', '0', '--state-root', stateRoot, '--input', input], {
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
