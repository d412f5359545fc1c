/**
 * The real agent entry (sources) as a bare child process, with the test as its orchestrator: what
 * it sent so far, and ways to wait for a message of it.
 */
import { AGENT_SOURCE_ENTRY } from '../../../orchestrator/process/agent-bundle.ts';
import { inReplyToOf, ORCHESTRATOR } from '../../../shared/ipc/control-events.ts';
import { type TypedIpcMessage, validateIpcMessage } from '../../../shared/ipc/ipc-schemas.ts';
import type { AgentEvent } from '../../../shared/types/events.ts';
import { waitUntil } from '../../helpers/wait-for.ts';

export interface AgentChild {
  send(payload: AgentEvent): void;
  /** The first event it sent of `type`. */
  next(type: string): Promise<AgentEvent>;
  /** The first event it sent that matches. */
  find(what: string, match: (event: AgentEvent) => boolean): Promise<AgentEvent>;
  received(): AgentEvent[];
  reply(correlationId: string): Promise<AgentEvent>;
  kill(): void;
}

export function spawnAgent(): AgentChild {
  const received: AgentEvent[] = [];
  const child = Bun.spawn([process.execPath, AGENT_SOURCE_ENTRY], {
    serialization: 'json',
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, GOONDAN_LOG_LEVEL: 'silent' },
    ipc(raw) {
      const result = validateIpcMessage(raw);
      if (!result.ok) throw new Error(`invalid IPC message: ${result.problems.join('; ')}`);
      const message: TypedIpcMessage = result.value;
      if (message.type === 'event') received.push(message.payload);
    },
  });
  const find = async (what: string, match: (event: AgentEvent) => boolean): Promise<AgentEvent> => {
    await waitUntil(() => received.some(match), what);
    const found = received.find(match);
    if (!found) throw new Error(`no ${what}`);
    return found;
  };
  return {
    send: (payload) => child.send({ type: 'event', from: ORCHESTRATOR, to: 'pool', payload }),
    next: (type) => find(type, (event) => event.type === type),
    find,
    received: () => [...received],
    reply: (correlationId) => find(`the reply to ${correlationId}`, (event) => inReplyToOf(event) === correlationId),
    kill: () => child.kill('SIGKILL'),
  };
}
