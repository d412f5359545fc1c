/**
 * A reply printed on a terminal cannot drive it: `goondan send` in a real pseudo-terminal (`script`)
 * shows the control characters of an agent's reply as escapes; piped, the reply is byte for byte.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { GOONDAN_BIN, REPO_ROOT, sharedDaemon } from '../e2e/daemon-harness.ts';

const daemon = sharedDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/swarm'));
const EVIL = 'clear \u001b[2J\u001b[1;1Hall good';

async function run(argv: string[]): Promise<string> {
  const proc = Bun.spawn(argv, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return out;
}

describe('goondan send', () => {
  test('on a terminal, an agent’s escape sequences are shown, not obeyed; piped, they pass as they are', async () => {
    const send = [GOONDAN_BIN, 'send', EVIL, '--instance', 'tty-1', '--state-root', daemon().stateRoot];
    const quoted = send.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
    const onTerminal = await run(['script', '-qec', quoted, '/dev/null']);
    expect(onTerminal).toContain('alpha got: clear \\x1b[2J\\x1b[1;1Hall good');
    expect(onTerminal).not.toContain('\u001b[2J');
    const piped = await run([...send.slice(0, 3), '--instance', 'tty-2', '--state-root', daemon().stateRoot]);
    expect(piped).toBe(`alpha got: ${EVIL}\n`);
  });
});
