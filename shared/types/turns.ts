/**
 * Turns, steps and the observation events they emit (SPEC.md §2.7, §3.2).
 */
import type { ErrorShape } from '../errors/error-shape-type.ts';
import type { JsonObject, JsonValue } from './json.ts';
import type { Message } from './messages.ts';
import type { ToolCall, ToolResult } from './tools.ts';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Part of promptTokens the provider served from its prompt cache, when it says so. */
  cachedPromptTokens?: number;
}

/** What model calls cost (Model.spec.pricing). */
export interface Cost {
  amount: number;
  /** ISO 4217 code. */
  currency: string;
}

/** Why a turn or step failed: the one ErrorShape of every boundary. */
export type TurnError = ErrorShape;

export type FinishReason = 'text_response' | 'max_steps' | 'error';

export interface TurnResult {
  turnId: string;
  traceId: string;
  finishReason: FinishReason;
  /** The last assistant message of the turn, when there is one. */
  responseMessage?: Message;
  /** Plain text of the reply (what a requester or HTTP caller receives). */
  responseText: string;
  stepCount: number;
  tokenUsage?: TokenUsage;
  error?: TurnError;
}

export interface StepResult {
  status: 'completed' | 'failed';
  shouldContinue: boolean;
  toolCalls: ToolCall[];
  toolResults: ToolResult[];
  /** Text the model produced in this step ('' when it only called tools). */
  text: string;
  tokenUsage?: TokenUsage;
  metadata: Record<string, JsonValue>;
  error?: TurnError;
}

// ── Runtime events (observation log, SSE, metrics) ─────────────────────────

interface RuntimeEventBase {
  timestamp: string;
  agentName: string;
  instanceKey: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

export type RuntimeEvent =
  | (RuntimeEventBase & { type: 'turn.started'; turnId: string; eventId: string })
  | (RuntimeEventBase & {
      type: 'turn.completed';
      turnId: string;
      stepCount: number;
      duration: number;
      finishReason: FinishReason;
      tokenUsage?: TokenUsage;
      /** Sum of the steps' costs, when the agent's Model has pricing. */
      cost?: Cost;
    })
  | (RuntimeEventBase & { type: 'turn.failed'; turnId: string; duration: number; error: ErrorShape; stepCount: number })
  | (RuntimeEventBase & {
      type: 'step.started';
      turnId: string;
      stepId: string;
      stepIndex: number;
      llmInputMessages?: Array<{ role: string; content: string }>;
    })
  | (RuntimeEventBase & {
      type: 'step.completed';
      turnId: string;
      stepId: string;
      stepIndex: number;
      toolCallCount: number;
      duration: number;
      /** Milliseconds of this step spent in the model call (AI SDK + provider), part of `duration`. */
      modelDuration?: number;
      /** When the model call began (after any wait for its admission), ISO 8601. */
      modelStartedAt?: string;
      tokenUsage?: TokenUsage;
      /** The Model resource that answered (its name). */
      model?: string;
      /** The model call's cost, when the Model has pricing. */
      cost?: Cost;
    })
  | (RuntimeEventBase & {
      /** Model text as it streams (coalesced; never written to runtime-events.jsonl). */
      type: 'step.delta';
      turnId: string;
      stepId: string;
      stepIndex: number;
      /** The agent's name again, as `agent` (what stream consumers read; same as agentName). */
      agent: string;
      text: string;
    })
  | (RuntimeEventBase & { type: 'step.failed'; turnId: string; stepId: string; stepIndex: number; duration: number; error: ErrorShape })
  | (RuntimeEventBase & {
      /** The call started (issue 17 calls it `tool.started`; the name `tool.called` is kept for existing consumers). */
      type: 'tool.called';
      turnId: string;
      stepId: string;
      toolCallId: string;
      toolName: string;
      args?: JsonObject;
      /** The export's `summary` rendered over the arguments ("Run git status"). */
      summary?: string;
      displayName?: string;
      icon?: string;
    })
  | (RuntimeEventBase & {
      type: 'tool.completed';
      turnId: string;
      stepId: string;
      toolCallId: string;
      toolName: string;
      status: ToolResult['status'];
      duration: number;
      /** The error the model saw, when the result is an error (a handler that threw is tool.failed). */
      error?: ErrorShape;
    })
  | (RuntimeEventBase & {
      type: 'tool.failed';
      turnId: string;
      stepId: string;
      toolCallId: string;
      toolName: string;
      duration: number;
      error: ErrorShape;
    });

/** Published by the orchestrator, never by an agent: an accepted event was given up (dead-lettered). */
export type DeadLetterEvent = RuntimeEventBase & { type: 'event.dead'; eventId: string; reason: string };
/** What the daemon's event stream (`GET /v1/events/stream`) and its log carry. */
export type StreamedEvent = RuntimeEvent | DeadLetterEvent;

export type RuntimeEventType = RuntimeEvent['type'];
export const RUNTIME_EVENT_TYPES: readonly RuntimeEventType[] = [
  'turn.started',
  'turn.completed',
  'turn.failed',
  'step.started',
  'step.completed',
  'step.delta',
  'step.failed',
  'tool.called',
  'tool.completed',
  'tool.failed',
];
