/**
 * `goondan logs` says why a tool call, step or turn failed: the runtime events carry it as
 * `error: {code, message}`, printed as errorCode= and errorMessage= on the event's line.
 */
import { expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancesDir } from '../../shared/state-paths.ts';
import { tempDirsRemovedAfterEach } from '../helpers/temp-dirs.ts';
import { goondan } from './goondan-cli.ts';

const tempDir = tempDirsRemovedAfterEach('goondan-logs-errors-');
const TRACE = 'feedbeef'.repeat(4);

function stateWith(events: Array<Record<string, unknown>>): string {
  const stateRoot = tempDir();
  const dir = join(instancesDir(stateRoot, 'ws'), 'alpha--k');
  mkdirSync(join(dir, 'messages'), { recursive: true });
  writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ agentName: 'alpha', instanceKey: 'k' }));
  const lines = events.map((event, i) => JSON.stringify({ timestamp: `2026-01-01T00:00:0${i}.000Z`, agentName: 'alpha', instanceKey: 'k', traceId: TRACE, ...event }));
  writeFileSync(join(dir, 'messages', 'runtime-events.jsonl'), `${lines.join('\n')}\n`);
  return stateRoot;
}

test('tool.failed, step.failed and turn.failed lines carry the error code and message', async () => {
  const stateRoot = stateWith([
    { type: 'tool.failed', toolName: 'bash__exec', duration: 3, error: { code: 'E_TOOL_THREW', message: 'spawn sh ENOENT' } },
    { type: 'step.failed', stepIndex: 0, duration: 5, error: { code: 'E_MODEL_CALL', message: '401 bad key' } },
    { type: 'turn.failed', stepCount: 1, duration: 9, error: { code: 'E_MODEL_CALL', message: '401 bad key' } },
  ]);
  const run = await goondan(['logs', '--state-root', stateRoot]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.trimEnd().split('\n')).toEqual([
    '2026-01-01T00:00:00.000Z  alpha@k  tool.failed     trace=feedbeef  toolName="bash__exec" errorCode="E_TOOL_THREW" errorMessage="spawn sh ENOENT" 3.0ms',
    '2026-01-01T00:00:01.000Z  alpha@k  step.failed     trace=feedbeef  stepIndex=0 errorCode="E_MODEL_CALL" errorMessage="401 bad key" 5.0ms',
    '2026-01-01T00:00:02.000Z  alpha@k  turn.failed     trace=feedbeef  stepCount=1 errorCode="E_MODEL_CALL" errorMessage="401 bad key" 9.0ms',
  ]);
});

test('an event without an error prints as before', async () => {
  const stateRoot = stateWith([{ type: 'tool.completed', toolName: 'bash__exec', status: 'ok', duration: 2 }]);
  const run = await goondan(['logs', '--state-root', stateRoot]);
  expect(run.stdout.trimEnd()).toBe('2026-01-01T00:00:00.000Z  alpha@k  tool.completed  trace=feedbeef  toolName="bash__exec" status="ok" 2.0ms');
});
