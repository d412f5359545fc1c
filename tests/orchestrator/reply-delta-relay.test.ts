/**
 * Token streaming to connectors (issue 13): a connector's request that asked for it gets the text
 * of the agent instance it went to, in its trace, as `runtime.reply.delta` control events — never
 * the text of agents that instance calls, of other traces, or after the reply.
 */
import { describe, expect, test } from 'bun:test';
import { RuntimeEventBus } from '../../orchestrator/daemon/runtime-event-bus.ts';
import { type RelayTarget, ReplyDeltaRelay } from '../../orchestrator/routing/reply-delta-relay.ts';
import { makeEvent } from '../../shared/ipc/control-events.ts';
import { parseControl } from '../../shared/ipc/control-protocol.ts';
import type { TypedIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { StreamedEvent } from '../../shared/types/turns.ts';

const TRACE = 'a'.repeat(32);
const OTHER_TRACE = 'b'.repeat(32);

function delta(agent: string, instanceKey: string, text: string, traceId = TRACE, stepId = 'step_1'): StreamedEvent {
  return { type: 'step.delta', timestamp: new Date().toISOString(), agentName: agent, agent, instanceKey, traceId, spanId: 'c'.repeat(16), turnId: 'turn_1', stepId, stepIndex: 0, text };
}

/** A connector process as the relay sees it: what it was sent, decoded through the control schema. */
function connector(): RelayTarget & { alive: boolean; received: () => Array<{ correlationId: string; stepId: string; text: string }> } {
  const sent: TypedIpcMessage[] = [];
  return {
    name: 'cli',
    incarnation: 1,
    alive: true,
    send(message) {
      sent.push(message);
      return true;
    },
    received: () =>
      sent.map((message) => {
        if (message.type !== 'event') throw new Error(`expected an event, got ${message.type}`);
        const parsed = parseControl(message.payload);
        if (!parsed.ok || parsed.message.type !== 'runtime.reply.delta') throw new Error(`not a valid runtime.reply.delta: ${JSON.stringify(parsed)}`);
        return parsed.message.payload;
      }),
  };
}

describe('which text is relayed', () => {
  test("the replying instance's step.delta text in the request's trace goes to the connector, in order", () => {
    const bus = new RuntimeEventBus();
    const relay = new ReplyDeltaRelay(bus);
    const cli = connector();
    relay.follow('corr_1', TRACE, { agent: 'desk', instanceKey: 'cli' }, cli);
    bus.publish(delta('desk', 'cli', 'one '));
    bus.publish(delta('desk', 'cli', 'two', TRACE, 'step_2'));
    expect(cli.received()).toEqual([
      { correlationId: 'corr_1', stepId: 'step_1', text: 'one ' },
      { correlationId: 'corr_1', stepId: 'step_2', text: 'two' },
    ]);
  });

  test('callees in the same trace (another agent, or the same agent under another key) and other traces are not the reply', () => {
    const bus = new RuntimeEventBus();
    const relay = new ReplyDeltaRelay(bus);
    const cli = connector();
    relay.follow('corr_1', TRACE, { agent: 'desk', instanceKey: 'cli' }, cli);
    bus.publish(delta('helper', 'cli', 'callee words'));
    bus.publish(delta('desk', 'other', 'same agent, other instance'));
    bus.publish(delta('desk', 'cli', 'another trace', OTHER_TRACE));
    bus.publish({ ...delta('desk', 'cli', ''), type: 'turn.started', turnId: 't', eventId: 'e' });
    expect(cli.received()).toEqual([]);
  });
});

describe('how long it is relayed', () => {
  test('nothing after the request was answered, and the bus subscription is released', () => {
    const bus = new RuntimeEventBus();
    const relay = new ReplyDeltaRelay(bus);
    const cli = connector();
    expect(bus.size).toBe(0);
    relay.follow('corr_1', TRACE, { agent: 'desk', instanceKey: 'cli' }, cli);
    relay.follow('corr_2', OTHER_TRACE, { agent: 'desk', instanceKey: 'cli' }, cli);
    expect(bus.size).toBe(1);
    relay.end('corr_1');
    bus.publish(delta('desk', 'cli', 'late'));
    bus.publish(delta('desk', 'cli', 'still waited for', OTHER_TRACE));
    expect(cli.received().map((d) => d.correlationId)).toEqual(['corr_2']);
    relay.end('corr_2');
    relay.end('corr_2');
    expect(bus.size).toBe(0);
    expect(relay.size).toBe(0);
  });

  test('a connector that died or was respawned since it asked gets nothing', () => {
    const bus = new RuntimeEventBus();
    const relay = new ReplyDeltaRelay(bus);
    const cli = connector();
    relay.follow('corr_1', TRACE, { agent: 'desk', instanceKey: 'cli' }, cli);
    cli.incarnation = 2;
    bus.publish(delta('desk', 'cli', 'for the old process'));
    cli.incarnation = 1;
    cli.alive = false;
    bus.publish(delta('desk', 'cli', 'for a dead process'));
    expect(cli.received()).toEqual([]);
  });
});

describe('runtime.reply.delta on receipt (ajv)', () => {
  test('a chunk needs a correlationId, a stepId and string text; anything else is rejected, never thrown', () => {
    const source = { kind: 'agent' as const, name: 'orchestrator' };
    const good = makeEvent('runtime.reply.delta', source, { metadata: { correlationId: 'corr_1', stepId: 's', text: 'hi' } });
    expect(parseControl(good).ok).toBe(true);
    const malformed: JsonObject[] = [{ stepId: 's', text: 'hi' }, { correlationId: 'corr_1', stepId: 's', text: 3 }, { correlationId: '', stepId: 's', text: 'hi' }, { correlationId: 'c', stepId: 's', text: 'hi', extra: true }];
    for (const metadata of malformed) {
      const parsed = parseControl(makeEvent('runtime.reply.delta', source, { metadata }));
      expect(parsed.ok).toBe(false);
    }
  });
});
