/**
 * A fold that rewrites the base (a remove, a truncate, a message appended and then replaced in one
 * turn, the edits' limit) takes the old base, its edits and the events in at one commit point: the
 * events file's rename. A real process is SIGKILLed at each step of the rewrite; an engine started
 * on what it left recovers the conversation exactly, with each message once and nothing replayed
 * twice — before, a kill after the new base's rename replayed `append(x), replace(x→y)` over a
 * base that already held `y`, and the conversation ended `…, y, y`.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createMessage } from '../../agent-process/conversation/message-factory.ts';
import { foldedEvents, instancePaths, rewritingBase, type InstancePaths } from '../../shared/state-paths.ts';
import type { Message } from '../../shared/types/messages.ts';
import { baseMessages, makePlan, startEngine, tempStateRoot, trackEngines } from './helpers/engine-fixture.ts';

const RUNNER = resolve(import.meta.dir, '../fixtures/crash/rewrite-runner.ts');
const PRELOAD = resolve(import.meta.dir, '../fixtures/crash/kill-at-preload.ts');
const harnesses = trackEngines();

const message = (role: 'system' | 'user' | 'assistant', content: string): Message => createMessage({ role, content }, role === 'assistant' ? { type: 'assistant', stepId: 'step-1' } : { type: role });
const jsonl = (values: unknown[]): string => values.map((value) => `${JSON.stringify(value)}\n`).join('');

/** A base of two messages whose system prompt an edit replaced, as earlier turns left them. */
function earlierTurns(paths: InstancePaths): Message[] {
  const [oldPrompt, prompt, question] = [message('system', 'prompt 1'), message('system', 'prompt 2'), message('user', 'question')];
  mkdirSync(paths.messagesDir, { recursive: true });
  writeFileSync(paths.baseMessages, jsonl([oldPrompt, question]));
  writeFileSync(paths.baseEdits, jsonl([{ type: 'replace', targetId: oldPrompt.id, message: prompt }]));
  return [prompt, question];
}

/** Runs the turn whose fold rewrites the base, killed at `killAt`; '' lets it finish. */
async function rewriteKilledAt(paths: InstancePaths, killAt: string, appended: Message, replacement: Message): Promise<void> {
  const args = JSON.stringify({ base: paths.baseMessages, edits: paths.baseEdits, events: paths.messageEvents, appended, replacement });
  const child = Bun.spawn([process.execPath, '--preload', PRELOAD, RUNNER, args], { env: { ...process.env, GOONDAN_TEST_KILL_AT: killAt }, stdout: 'pipe', stderr: 'pipe' });
  await child.exited;
  const stderr = await new Response(child.stderr).text();
  // The kill point was reached (or, with none, the fold finished).
  expect({ signal: child.signalCode, stderr }).toEqual({ signal: killAt === '' ? null : 'SIGKILL', stderr: '' });
}

const KILL_POINTS: Array<[string, string]> = [
  ['before the events are renamed away (the commit point)', 'rename:events.jsonl'],
  ['after the commit point, before the new base is renamed in', 'rename:base.jsonl.rewrite'],
  ['after the new base is renamed in, before the edits are emptied', 'renamed:base.jsonl'],
  ['before the renamed events are removed', 'remove:events.jsonl.folded'],
  ['nowhere (the rewrite finishes)', ''],
];

describe('a rewrite killed at each of its steps', () => {
  for (const [where, killAt] of KILL_POINTS) {
    test(`killed ${where}: the restarted engine holds each message once, and no rewrite file is left`, async () => {
      const stateRoot = tempStateRoot();
      const paths = instancePaths(stateRoot, 'test-swarm', 'tester', 'user-1');
      const before = earlierTurns(paths);
      const appended = message('assistant', 'draft');
      const replacement = message('assistant', 'final answer');
      await rewriteKilledAt(paths, killAt, appended, replacement);

      const h = await startEngine(makePlan(), { stateRoot });
      harnesses.push(h);
      const ids = baseMessages(h.paths).map((m) => m.id);
      expect(ids).toEqual([...before, replacement].map((m) => m.id));
      expect(h.logLines().filter((line) => Number(line.level) >= 40)).toEqual([]);
      expect([existsSync(rewritingBase(paths.baseMessages)), existsSync(foldedEvents(paths.messageEvents))]).toEqual([false, false]);
      await h.engine.close();
    });
  }
});
