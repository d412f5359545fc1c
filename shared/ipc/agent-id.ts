/**
 * One agent address (AutoGen's `(type, key)`): an agent instance is `{agent, instanceKey}`, keyed
 * `agent:instanceKey` everywhere (process table, inboxes, pending requests, call chains). Built
 * here only; the router is the one place that defaults a missing instanceKey.
 */
export interface AgentId {
  agent: string;
  instanceKey: string;
}

export function agentKey(id: AgentId): string {
  return `${id.agent}:${id.instanceKey}`;
}

export function agentId(agent: string, instanceKey: string): AgentId {
  return { agent, instanceKey };
}
