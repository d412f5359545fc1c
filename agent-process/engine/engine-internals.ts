/**
 * What the turn and step loops share inside one engine: the collaborators built by
 * createAgentEngine and the per-turn state. Internal to agent-process/engine.
 */
import type { AgentPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { MiddlewareAgentsApi, MiddlewareRuntimeInfo, TurnInfo } from '../../shared/types/extensions.ts';
import type { JsonValue } from '../../shared/types/json.ts';
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import type { Logger } from '../../shared/types/tools.ts';
import type { StepResult, TokenUsage } from '../../shared/types/turns.ts';
import type { Conversation } from '../conversation/conversation-state.ts';
import type { ResolvedModel } from '../models/create-language-model.ts';
import type { PromptConverter } from '../models/prompt-converter.ts';
import type { RuntimeEventLog } from '../observability/runtime-event-log.ts';
import type { Span } from '../observability/trace-span.ts';
import type { ToolCallRunner } from '../tools/tool-call-runner.ts';
import type { ToolJournal } from '../tools/tool-journal.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import type { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { AsyncReplyInbox } from './async-reply-inbox.ts';
import type { ModelGate } from './model-gate.ts';
import type { PipelineRegistry } from './pipeline-registry.ts';

export interface EngineInternals {
  plan: AgentPlan;
  swarm: SwarmPlan;
  instanceKey: string;
  logger: Logger;
  conversation: Conversation;
  /** Core appends: trusted messages, persisted before the engine moves on. */
  append(message: Message): void;
  /** Extension-emitted events: validated, then persisted and applied. */
  emitMessageEvent(event: MessageEvent): void;
  registry: ToolRegistry;
  pipeline: PipelineRegistry;
  toolRunner: ToolCallRunner;
  events: RuntimeEventLog;
  model: ResolvedModel;
  /** The conversation as the model's prompt, converted incrementally. */
  prompt: PromptConverter;
  inbox: AsyncReplyInbox;
  /** Tool calls of the unfolded turn (issue 10). */
  journal: ToolJournal;
  /** The instance's durability policy: barrier() before a reply or an ack leaves the process. */
  fsync: FsyncPolicy;
  maxStepsPerTurn: number;
  onRestartRequested?: (reason: string) => void;
  /** Admits each model call when a budget or rate limit applies (the shell asks the orchestrator). */
  modelGate?: ModelGate;
}

/** One turn in progress. */
export interface TurnState {
  turnId: string;
  event: AgentEvent;
  span: Span;
  info: TurnInfo & { steps: StepResult[] };
  runtime: MiddlewareRuntimeInfo;
  agents: MiddlewareAgentsApi;
  /** Set when this event's input is already in the conversation (redelivery after a crash). */
  resumeFrom?: { inputIndex: number; stepsDone: number };
  /** Span of the step running now (for ctx.agents calls from step middleware). */
  currentSpan: Span;
  lastAssistant?: Message;
  tokenUsage?: TokenUsage;
  metadata: Record<string, JsonValue>;
}

export function addUsage(total: TokenUsage | undefined, step: TokenUsage | undefined): TokenUsage | undefined {
  if (!step) return total;
  if (!total) return { ...step };
  const sum: TokenUsage = {
    promptTokens: total.promptTokens + step.promptTokens,
    completionTokens: total.completionTokens + step.completionTokens,
    totalTokens: total.totalTokens + step.totalTokens,
  };
  if (total.cachedPromptTokens !== undefined || step.cachedPromptTokens !== undefined) sum.cachedPromptTokens = (total.cachedPromptTokens ?? 0) + (step.cachedPromptTokens ?? 0);
  return sum;
}
