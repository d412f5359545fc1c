/**
 * The Connector contract (SPEC.md §6): one process per Connection; the entry's default export
 * receives this context and emits events the orchestrator routes by the Connection's ingress rules.
 */
import type { ErrorShape } from '../errors/error-shape-type.ts';
import type { Logger } from './tools.ts';

export type ConnectorMessage =
  | { type: 'text'; text: string }
  | { type: 'image'; url: string }
  | { type: 'file'; url: string; name: string };

export interface ConnectorEvent {
  /** One of the Connector's declared `events[].name`. */
  name: string;
  message: ConnectorMessage;
  properties: Record<string, string>;
  /** Conversation key; routing may override it (ingress `instanceKey` / `instanceKeyProperty`). */
  instanceKey: string;
  /**
   * The provider's id of this delivery (e.g. a webhook delivery id): a redelivery under the same id
   * within 24 h runs no second turn — a request gets the original turn's reply (issue 10).
   */
  idempotencyKey?: string;
}

export interface ConnectorReply {
  status: 'ok' | 'error' | 'timeout';
  /** The reply, or the error message when the status is not ok. */
  text: string;
  turnId?: string;
  traceId?: string;
  error?: ErrorShape;
  /**
   * The request passed `onText` and the reply streamed through it: `onText` has then also been
   * given the rest of an ok reply and its line end (the whole reply is shown), or a line break
   * before a failure, whose message is still to be shown.
   */
  streamed?: boolean;
}

export interface ConnectorRequestOptions {
  timeoutMs?: number;
  /**
   * Show the reply as the model produces it: called with each chunk of text to append to what is
   * shown (a line break between the text of successive model steps). A model that does not
   * stream never calls it; the reply is then only in the resolved ConnectorReply.
   */
  onText?: (text: string) => void;
}

/** A tool call an agent wants to make, shown to the person at an interactive connector. */
export interface ConnectorApprovalPrompt {
  id: string;
  agent: string;
  instanceKey: string;
  toolName: string;
  args: Record<string, unknown>;
  reason: string;
  expiresAt: string;
  /** What the call does in one line ("Run git status"), from the export's `summary`. */
  summary?: string;
  displayName?: string;
  icon?: string;
  /** The tool's own preview of the effect (a diff, the commands of a line). */
  preview?: string;
}

export interface ConnectorContext {
  /** Emits one event; it becomes an independent Turn with its own traceId. */
  emit(event: ConnectorEvent): Promise<void>;
  /** Emits one event and resolves with the agent's reply (used by interactive connectors). */
  request(event: ConnectorEvent, options?: ConnectorRequestOptions): Promise<ConnectorReply>;
  config: Record<string, string>;
  secrets: Record<string, string>;
  logger: Logger;
  /** Aborted when the connection is shut down. */
  signal: AbortSignal;
  /** Interactive connectors answer tool-approval prompts here (tool permission policy `ask`). */
  onApproval(handler: (prompt: ConnectorApprovalPrompt) => Promise<{ approved: boolean; scope: 'once' | 'session' }>): void;
  /**
   * Resolves once this process is the only one of its connection allowed to hold the provider's
   * connection — call it before polling (two pollers of one bot token fight over its updates). At
   * once on a single node; in cluster mode when this node holds the connection's lease, which moves
   * with a node's death or shutdown (the connector is then restarted and waits here again).
   * Optional for connector modules written against an older runtime.
   */
  exclusive?(): Promise<void>;
}

export type ConnectorEntry = (ctx: ConnectorContext) => Promise<void>;
