/**
 * Everything around one turn chain: answering a redelivered event that already finished, trace
 * span and `turn.*` events, the `turn` middleware context, and — after the chain returned —
 * extension state, the fold into `base.jsonl` and `metadata.json` (SPEC.md §2.7 step 3).
 */
import { newId } from '../../shared/ids.ts';
import type { AgentEvent } from '../../shared/types/events.ts';
import type { TurnMiddlewareContext } from '../../shared/types/extensions.ts';
import type { JsonValue } from '../../shared/types/json.ts';
import type { Message } from '../../shared/types/messages.ts';
import type { TurnError, TurnResult } from '../../shared/types/turns.ts';
import type { InstanceMetadataFile } from '../conversation/instance-metadata.ts';
import { messageText } from '../conversation/message-parts.ts';
import type { MessageStore } from '../conversation/message-store.ts';
import type { ExtensionStateStore } from '../extensions/extension-state.ts';
import { spanFields, turnSpan } from '../observability/trace-span.ts';
import { turnCost } from '../observability/usage-facts.ts';
import { errorShape } from '../../shared/errors/index.ts';
import { runChain } from './chain-runner.ts';
import type { EngineInternals, TurnState } from './engine-internals.ts';
import type { AgentToolRuntime } from '../../shared/types/tools.ts';
import { createMiddlewareAgents } from './middleware-agents.ts';
import { locateInput } from './redelivery.ts';
import { turnCore, turnResult } from './run-turn.ts';
import { middlewareRuntimeInfo } from './runtime-info.ts';

export interface TurnLifecycleDeps {
  engine: EngineInternals;
  store: MessageStore;
  states: ExtensionStateStore;
  metadataFile: InstanceMetadataFile;
  agentsRuntime?: AgentToolRuntime;
}

export interface TurnHooks {
  /**
   * The turn is folded and its records written, not yet synced (`fsync: batch`): what may leave
   * before the sync, can (an answer to another agent, marked `unsynced`). Not called for a
   * redelivered event that had already finished.
   */
  beforeSync?(result: TurnResult): void;
}

export async function executeTurn(deps: TurnLifecycleDeps, event: AgentEvent, hooks: TurnHooks = {}): Promise<TurnResult> {
  const { engine } = deps;
  if (isJsonObjectWithReply(event)) {
    // Replies are routed by the shell (to the waiting request), never run as a turn.
    return rejectedEvent(event, errorShape('E_EVENT_IS_REPLY', 'system', `event ${event.id} is a reply (metadata.inReplyTo); replies never start a turn`));
  }

  const located = locateInput(engine.conversation, event.id);
  if (located?.finishedWith) {
    // Redelivered after the turn finished (crash before the ack): answer again, call nothing.
    engine.logger.info({ eventId: event.id, traceId: event.traceId }, 'redelivered event already answered; returning the stored reply');
    return {
      ...storedTurnIds(located.input, event),
      finishReason: 'text_response',
      responseMessage: located.finishedWith,
      responseText: messageText(located.finishedWith.data),
      stepCount: located.stepsDone,
    };
  }
  if (located?.overtakenBy !== undefined) {
    // Resumed now, its steps would follow the later turns' and answer from the conversation past it
    // (the model reads the latest input): the caller learns it was interrupted instead.
    const error = errorShape(
      'E_TURN_OVERTAKEN',
      'system',
      `event ${event.id} came again after its turn was interrupted, and event ${located.overtakenBy} has had its turn since; the interrupted turn is not resumed`,
      { suggestion: 'Send the message again: it is answered from the conversation as it stands now.', details: { overtakenBy: located.overtakenBy } },
    );
    engine.logger.warn({ eventId: event.id, code: error.code, overtakenBy: located.overtakenBy }, error.message);
    return { ...storedTurnIds(located.input, event), finishReason: 'error', responseText: '', stepCount: located.stepsDone, error };
  }

  const span = turnSpan(event);
  const turnId = located && typeof located.input.metadata.turnId === 'string' ? located.input.metadata.turnId : newId('turn');
  const metadata: Record<string, JsonValue> = {};
  const turn: TurnState = {
    turnId,
    event,
    span,
    currentSpan: span,
    info: { id: turnId, agentName: engine.plan.name, inputEvent: event, steps: [], metadata },
    runtime: middlewareRuntimeInfo(engine.plan, engine.swarm, engine.instanceKey, event),
    agents: createMiddlewareAgents(deps.agentsRuntime, () => ({ traceId: turn.currentSpan.traceId, spanId: turn.currentSpan.spanId })),
    metadata,
  };
  if (located) {
    turn.resumeFrom = { inputIndex: located.inputIndex, stepsDone: located.stepsDone };
    if (located.lastAssistant) turn.lastAssistant = located.lastAssistant;
    engine.logger.info({ eventId: event.id, traceId: event.traceId, stepsDone: located.stepsDone }, 'redelivered event: resuming its turn');
  }

  const common = { agentName: engine.plan.name, instanceKey: engine.instanceKey, turnId };
  deps.metadataFile.turnStarted();
  const ctx: TurnMiddlewareContext = {
    agentName: engine.plan.name,
    instanceKey: engine.instanceKey,
    turnId,
    traceId: span.traceId,
    inputEvent: event,
    conversationState: engine.conversation,
    agents: turn.agents,
    runtime: turn.runtime,
    emitMessageEvent: (messageEvent) => engine.emitMessageEvent(messageEvent),
    metadata,
    next: () => Promise.reject(new Error('next() of the turn core context is not callable')),
  };

  const result = await runChain(engine.pipeline, 'turn', {
    ctx,
    core: () => turnCore(engine, turn),
    span,
    accept: (value) => (isTurnResult(value) ? value : undefined),
    failed: (error) => turnResult(turn, 'error', turn.info.steps.length, error),
    started: () => engine.events.emit({ type: 'turn.started', timestamp: new Date().toISOString(), ...spanFields(span), ...common, eventId: event.id }),
    finished: (done, duration) => {
      const timestamp = new Date().toISOString();
      if (done.finishReason === 'error') {
        const error = done.error ?? errorShape('E_TURN_FAILED', 'system', 'turn failed');
        engine.events.emit({ type: 'turn.failed', timestamp, ...spanFields(span), ...common, duration, stepCount: done.stepCount, error });
        return;
      }
      engine.events.emit({
        type: 'turn.completed',
        timestamp,
        ...spanFields(span),
        ...common,
        stepCount: done.stepCount,
        duration,
        finishReason: done.finishReason,
        ...(done.tokenUsage ? { tokenUsage: done.tokenUsage } : {}),
        ...turnCost(engine.plan.model, done.tokenUsage),
      });
    },
  });

  try {
    deps.states.flush();
  } catch (error) {
    engine.logger.error({ code: 'E_EXT_STATE_WRITE', err: error }, 'cannot write extension state');
  }
  try {
    foldConversation(deps, { deferClear: true });
  } finally {
    deps.metadataFile.turnEnded();
  }
  // The turn's runtime events are in its observation log before the reply leaves (`goondan logs`,
  // or a test, reading right after the reply sees the whole turn): the write is due now anyway.
  engine.events.flush();
  hooks.beforeSync?.(result);
  // Whatever the reply and the ack that follow tell others is on disk first (durability policy):
  // the turn's events and its base append, in one round.
  await engine.fsync.settle();
  deps.store.clearFoldedEventsSoon();
  // The results now live in base.jsonl; the journal only ever covers the unfolded turn.
  engine.journal.clear();
  return result;
}

/**
 * Base first, then clear events (SPEC.md §3.1). A failed write throws: the caller must not ack, so
 * the event is redelivered and finds its finished turn in memory / on disk.
 */
export function foldConversation(deps: Pick<TurnLifecycleDeps, 'engine' | 'store'>, options: { deferClear?: boolean } = {}): void {
  const plan = deps.engine.conversation.foldPlan();
  if (plan.mode === 'none') return;
  deps.store.fold(plan, options);
  deps.engine.conversation.commitFold();
}

function isJsonObjectWithReply(event: AgentEvent): boolean {
  return event.metadata !== undefined && typeof event.metadata.inReplyTo === 'string';
}

/** The turn and trace ids the event's input message recorded when its turn first ran. */
function storedTurnIds(input: Message, event: AgentEvent): Pick<TurnResult, 'turnId' | 'traceId'> {
  const meta = input.metadata;
  return {
    turnId: typeof meta.turnId === 'string' ? meta.turnId : newId('turn'),
    traceId: typeof meta.traceId === 'string' ? meta.traceId : (event.traceId ?? ''),
  };
}

function rejectedEvent(event: AgentEvent, error: TurnError): TurnResult {
  return { turnId: newId('turn'), traceId: event.traceId ?? '', finishReason: 'error', responseText: '', stepCount: 0, error };
}

function isTurnResult(value: unknown): value is TurnResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    'turnId' in value &&
    typeof value.turnId === 'string' &&
    'finishReason' in value &&
    (value.finishReason === 'text_response' || value.finishReason === 'max_steps' || value.finishReason === 'error') &&
    'responseText' in value &&
    typeof value.responseText === 'string'
  );
}
