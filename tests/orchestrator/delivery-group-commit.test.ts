/**
 * Group commit (orchestrator/delivery/delivery.ts): the inbox records of one loop turn are written
 * together, and an event leaves the daemon — to its agent, or as an accepted event id — only once
 * its record is in the instance's inbox file. Per instance, events arrive in the order they came.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DurableInbox } from '../../orchestrator/delivery/durable-inbox.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import { type CoreFixture, coreFixtures } from './helpers/core-fixture.ts';
import { eventually } from './helpers/eventually.ts';
import type { FakeChild } from './helpers/fake-child.ts';
import { tempStateRoot } from '../e2e/daemon-harness.ts';

const fixture = coreFixtures();
// Under the sender's own key ('src'): agents reach only their own tenant's instances.
const KEYS = ['src/k0', 'src/k1', 'src/k2', 'src/k3'];

function inboxFile(f: CoreFixture, instanceKey: string): string {
  return instancePaths(f.stateRoot, f.swarm.workspaceId, 'a', instanceKey).inbox;
}

/** `a:<key>` for every key, started, its first turn done: ready and idle. */
async function readySinks(f: CoreFixture): Promise<FakeChild[]> {
  return Promise.all(
    KEYS.map(async (instanceKey) => {
      const { child, turn } = await f.runningTurn('a', instanceKey);
      child.runTurn(turn, 'awake');
      await f.waitForProcess('a', instanceKey, (p) => p.ready && p.status === 'idle', 'ready and idle');
      return child;
    }),
  );
}

describe('an event leaves the daemon only after its inbox record is written', () => {
  test('agent sends fanned out to several instances in one loop turn: each is in its inbox file when it is sent, and each instance gets its own in order', async () => {
    const f = fixture();
    const sinks = await readySinks(f);
    const sentBeforeRecord: string[] = [];
    for (const instanceKey of KEYS) {
      const proc = f.process('a', instanceKey);
      const send = proc.send.bind(proc);
      proc.send = (message) => {
        if (message.type === 'event' && message.payload.type === 'agent.send' && !readFileSync(inboxFile(f, instanceKey), 'utf8').includes(message.payload.id)) sentBeforeRecord.push(message.payload.id);
        return send(message);
      };
    }
    const { child: sender } = await f.runningTurn('b', 'src');
    const sent: AgentEvent[] = [];
    // One synchronous burst: the messages reach the daemon in one loop turn.
    for (let i = 0; i < 40; i++) sent.push(sender.send('a', { instanceKey: KEYS[i % KEYS.length], input: `m${i}` }));
    await Promise.all(sinks.map((sink) => sink.waitForWork(1 + 40 / KEYS.length)));
    expect(sentBeforeRecord).toEqual([]);
    for (const [index, instanceKey] of KEYS.entries()) {
      const expected = sent.filter((e) => e.instanceKey === instanceKey).map((e) => e.id);
      expect(sinks[index]?.work().slice(1).map((e) => e.id)).toEqual(expected);
    }
  });

  test('events accepted from outside in one loop turn are each in their inbox file when their acceptance returns', () => {
    const f = fixture();
    const missing: string[] = [];
    for (let i = 0; i < 12; i++) {
      const instanceKey = KEYS[i % KEYS.length] ?? 'src/k0';
      const eventId = f.tell('a', `accepted ${i}`, { instanceKey });
      // Read at once, in the same loop turn: no deferred write has had a chance to run.
      if (!readFileSync(inboxFile(f, instanceKey), 'utf8').includes(eventId)) missing.push(eventId);
    }
    expect(missing).toEqual([]);
  });

  test('a process killed with SIGKILL right after accepting events, before any later loop turn, loses none of them', async () => {
    const stateRoot = tempStateRoot();
    try {
      const child = Bun.spawn([process.execPath, join(import.meta.dir, '../fixtures/delivery/accept-then-freeze.ts'), stateRoot, String(KEYS.length), '5'], { stdout: 'pipe', stderr: 'pipe' });
      const reader = child.stdout.getReader();
      let output = '';
      while (!output.includes('\n')) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`the child ended before reporting its accepted events; stderr: ${await new Response(child.stderr).text()}`);
        output += new TextDecoder().decode(chunk.value);
      }
      child.kill('SIGKILL');
      await child.exited;
      const accepted = JSON.parse(output.slice(0, output.indexOf('\n'))) as Array<{ instanceKey: string; eventId: string }>;
      expect(accepted).toHaveLength(KEYS.length * 5);
      for (const instanceKey of KEYS) {
        const inbox = DurableInbox.open(instancePaths(stateRoot, 'core-test', 'a', instanceKey).inbox, 'a', instanceKey);
        expect(inbox.unacked().map((e) => e.id)).toEqual(accepted.filter((a) => a.instanceKey === instanceKey).map((a) => a.eventId));
      }
    } finally {
      rmSync(stateRoot, { recursive: true, force: true });
    }
  });
});

describe('when events leave', () => {
  test('a request that is the first record of its loop turn leaves at once, its record written; what is behind it, and fire-and-forget sends, leave together at the end of the loop turn', async () => {
    const f = fixture();
    const sinks = await readySinks(f);
    const routed = new Set(['agent.send', 'agent.request']);
    let handled = 0;
    const handle = f.core.router.handle.bind(f.core.router);
    f.core.router.handle = (message, proc) => {
      handle(message, proc);
      if (message.type === 'event' && routed.has(message.payload.type)) handled += 1;
    };
    // How many of the burst the daemon had handled when each event left it.
    const leftAfter: number[] = [];
    for (const instanceKey of KEYS) {
      const proc = f.process('a', instanceKey);
      const send = proc.send.bind(proc);
      proc.send = (message) => {
        if (message.type === 'event' && routed.has(message.payload.type)) {
          expect(readFileSync(inboxFile(f, instanceKey), 'utf8')).toContain(message.payload.id);
          leftAfter.push(handled);
        }
        return send(message);
      };
    }
    const { child: sender, turn } = await f.runningTurn('b', 'src');
    // One synchronous burst each: the messages reach the daemon in one loop turn.
    sender.request('a', { during: turn, instanceKey: KEYS[0], input: 'r0' });
    sender.send('a', { instanceKey: KEYS[1], input: 's1' });
    sender.send('a', { instanceKey: KEYS[2], input: 's2' });
    await Promise.all(sinks.slice(0, 3).map((sink) => sink.waitForWork(2)));
    expect(leftAfter).toEqual([0, 3, 3]);

    leftAfter.length = 0;
    handled = 0;
    for (let i = 0; i < 3; i++) sender.send('a', { instanceKey: KEYS[i], input: `m${i}` });
    await Promise.all(sinks.slice(0, 3).map((sink) => sink.waitForWork(3)));
    expect(leftAfter).toEqual([3, 3, 3]);
  });
});

describe('acknowledgements', () => {
  test('acknowledged events leave the inbox file by the next loop turn; a reopened inbox holds exactly the unacknowledged, in order', async () => {
    const f = fixture();
    const sinks = await readySinks(f);
    const sink = sinks[0];
    if (!sink) throw new Error('no sink');
    const { child: sender } = await f.runningTurn('b', 'src');
    const events = Array.from({ length: 6 }, (_, i) => sender.send('a', { instanceKey: 'src/k0', input: `m${i}` }));
    await sink.waitForWork(1 + events.length);
    for (const event of events.slice(0, 4)) sink.turnCompleted(event.id);
    await eventually(() => f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'src/k0' }) === 2, 'four of six acknowledged', () => `${f.core.delivery.pendingCount({ agent: 'a', instanceKey: 'src/k0' })} pending`);
    const path = inboxFile(f, 'src/k0');
    await eventually(() => DurableInbox.open(path, 'a', 'src/k0').size === 2, 'the acks in the file', () => readFileSync(path, 'utf8'));
    expect(DurableInbox.open(path, 'a', 'src/k0').unacked().map((e) => e.id)).toEqual(events.slice(4).map((e) => e.id));
  });
});
