/**
 * Metadata a request carries for the orchestrator (SPEC.md §2.6): the caller's call chain (nodes
 * `agent:instanceKey`, for cycle detection) and its timeout. Written by agents and connectors,
 * read by the router — one definition for both sides of the wire. Nodes are `agentKey()`s.
 */
import type { AgentEvent } from '../types/events.ts';

/** A request without its own timeout waits this long (ARCHITECTURE §2). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export const CALL_CHAIN_KEY = '__callChain';
export const TIMEOUT_KEY = '__timeoutMs';
/** An `async: true` request: its reply is injected into the conversation, so it outlives the requester's process (issue 10). */
export const ASYNC_KEY = '__async';

/** How many agent messages led to this one (1 for a message an agent sends while serving an outside event). */
export const HOPS_KEY = '__hops';

/** A connector's request whose reply it shows as it is produced: the orchestrator relays the reply's text (`runtime.reply.delta`). */
export const STREAM_REPLY_KEY = '__streamReply';

/** On a reply kept in a requester's durable inbox: the id of the async request it answers. */
export const ASYNC_REPLY_FOR_KEY = '__asyncReplyFor';

export function isAsyncRequest(event: AgentEvent): boolean {
  return event.metadata?.[ASYNC_KEY] === true;
}

export function wantsStreamedReply(event: AgentEvent): boolean {
  return event.metadata?.[STREAM_REPLY_KEY] === true;
}

/** The chain of calls that led to `event` (empty for events from outside the swarm). */
export function callChainOf(event: AgentEvent | undefined): string[] {
  const chain = event?.metadata?.[CALL_CHAIN_KEY];
  return Array.isArray(chain) ? chain.filter((n): n is string => typeof n === 'string') : [];
}

/** The requester's timeout, when it set a valid one. */
export function requestTimeoutOf(event: AgentEvent): number | undefined {
  const timeout = event.metadata?.[TIMEOUT_KEY];
  return typeof timeout === 'number' && timeout > 0 ? timeout : undefined;
}

/** Agent messages between the outside event that started the chain and `event` (0 for an outside event). */
export function hopsOf(event: AgentEvent | undefined): number {
  const hops = event?.metadata?.[HOPS_KEY];
  return typeof hops === 'number' && Number.isInteger(hops) && hops > 0 ? hops : 0;
}
