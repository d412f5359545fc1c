/**
 * What a connector process becomes once assigned (SPEC.md §6): it loads the connector's entry
 * module and runs its default export with a ConnectorContext; emitted events go to the
 * orchestrator, which applies the Connection's ingress rules. The connector owns its protocol,
 * nothing else. A module that cannot be loaded is a start-up failure; an entry that rejects later
 * ends the process (the orchestrator restarts it with backoff).
 */
import type { ChildRuntime, ShellChannel } from '../shared/child/child-shell.ts';
import { GoondanError, errorMessageOf } from '../shared/errors/index.ts';
import { ORCHESTRATOR, makeEvent } from '../shared/ipc/control-events.ts';
import type { Assignment, ControlMessage, ControlPayloads } from '../shared/ipc/control-protocol.ts';
import { STREAM_REPLY_KEY, TIMEOUT_KEY } from '../shared/ipc/request-metadata.ts';
import type { ReplyOutcome } from '../shared/ipc/reply-events.ts';
import { newId } from '../shared/ids.ts';
import { StreamedReply } from '../shared/streaming/streamed-reply.ts';
import { compiledValidator, describeErrors } from '../shared/validation/compiled-validator.ts';
import { createDeferredLogger } from '../shared/deferred-logger.ts';
import type { RootLogger } from '../shared/logger.ts';
import { requestControl } from '../shared/child/control-request.ts';
import type { ConnectionPlan } from '../shared/types/bundle.ts';
import type { ConnectorApprovalPrompt, ConnectorContext, ConnectorEntry, ConnectorEvent, ConnectorReply } from '../shared/types/connectors.ts';
import type { AgentEvent, EventSource } from '../shared/types/events.ts';

const validateConnectorEvent = compiledValidator<ConnectorEvent>({
  options: { allErrors: true, strict: false },
  schema: {
    type: 'object',
    required: ['name', 'message', 'instanceKey'],
    properties: {
      name: { type: 'string', minLength: 1 },
      instanceKey: { type: 'string', minLength: 1 },
      idempotencyKey: { type: 'string', minLength: 1, maxLength: 256 },
      properties: { type: 'object', additionalProperties: { type: 'string' } },
      message: {
        oneOf: [
          { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string' } } },
          { type: 'object', required: ['type', 'url'], properties: { type: { const: 'image' }, url: { type: 'string' } } },
          { type: 'object', required: ['type', 'url', 'name'], properties: { type: { const: 'file' }, url: { type: 'string' }, name: { type: 'string' } } },
        ],
      },
    },
  },
});

/** How long one ask for exclusivity waits before it is asked again. */
const EXCLUSIVE_ASK_MS = 10 * 60_000;

/** A connector whose requests nobody answers gives up after the orchestrator's own deadline plus this. */
const DEFAULT_CONNECTOR_REQUEST_TIMEOUT_MS = 60_000;

export async function startConnector(assignment: Assignment, channel: ShellChannel): Promise<ChildRuntime> {
  if (assignment.role !== 'connector') {
    throw new GoondanError('E_ASSIGNMENT_ROLE', 'system', `a connector process was assigned a ${assignment.role}`, { suggestion: 'this is a goondan bug; report it' });
  }
  const plan = assignment.connection;
  const logger = createDeferredLogger({ name: 'connector', base: { connection: plan.name }, ...(assignment.logFile ? { file: assignment.logFile } : {}) });
  const entry = await loadEntry(plan);
  const self: EventSource = { kind: 'connector', name: plan.name };
  const abort = new AbortController();
  let approvalHandler: Parameters<ConnectorContext['onApproval']>[0] | undefined;
  /** Requests shown as they stream (`onText`), by correlationId: where a `runtime.reply.delta` goes. */
  const streams = new Map<string, (stepId: string, text: string) => void>();

  const ctx: ConnectorContext = {
    async emit(event) {
      channel.post(ORCHESTRATOR, toAgentEvent(plan, self, logger, event));
    },
    async request(event, options = {}): Promise<ConnectorReply> {
      const correlationId = newId('corr');
      const payload = toAgentEvent(plan, self, logger, event, { target: plan.name, correlationId });
      const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECTOR_REQUEST_TIMEOUT_MS;
      const { onText } = options;
      payload.metadata = { ...payload.metadata, [TIMEOUT_KEY]: timeoutMs, ...(onText ? { [STREAM_REPLY_KEY]: true } : {}) };
      const shown = new StreamedReply();
      if (onText) streams.set(correlationId, (stepId, text) => onText(shown.chunk(stepId, text)));
      const reply = new Promise<ReplyOutcome>((resolve) => channel.replies.wait(correlationId, timeoutMs, resolve));
      channel.post(ORCHESTRATOR, payload);
      const outcome = await reply;
      streams.delete(correlationId);
      const streamed = onText !== undefined && shown.started;
      if (streamed) onText(outcome.status === 'ok' ? shown.finish(outcome.output) : shown.lineBreak());
      return {
        status: outcome.status,
        text: outcome.status === 'ok' ? outcome.output : (outcome.error?.message ?? outcome.status),
        ...(outcome.turnId ? { turnId: outcome.turnId } : {}),
        ...(outcome.traceId ? { traceId: outcome.traceId } : {}),
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(streamed ? { streamed } : {}),
      };
    },
    config: plan.config,
    secrets: plan.secrets,
    logger,
    signal: abort.signal,
    onApproval(handler) {
      approvalHandler = handler;
    },
    async exclusive() {
      // Asked again after each long wait: an answer lost with a restarted daemon must not leave it waiting forever.
      while (!abort.signal.aborted) {
        const answer = await requestControl({ channel, self }, 'runtime.connection.exclusive', {}, EXCLUSIVE_ASK_MS);
        if (answer.ok) return;
        if (answer.error.code !== 'AGENT_REQUEST_TIMEOUT') throw new GoondanError(answer.error.code, answer.error.category, answer.error.message);
      }
      throw new GoondanError('E_CONNECTOR_ABORTED', 'system', 'the connection was shut down while it waited to hold the provider connection alone');
    },
  };

  const running = Promise.resolve()
    .then(() => entry(ctx))
    .then(
      () => {
        // During a drain the shell acks and exits; otherwise the connector is simply done.
        if (!abort.signal.aborted) {
          logger.info('connector finished');
          process.exit(0);
        }
      },
      (error: unknown) => {
        logger.error({ err: error }, 'connector failed; exiting so the orchestrator restarts it');
        setTimeout(() => process.exit(1), 20);
      },
    );

  return {
    name: plan.name,
    source: self,
    logger,
    ackPayload: { connection: plan.name },
    onEvent: (event) => logger.warn({ eventId: event.id, type: event.type }, 'a connector receives no events; dropped'),
    onControl: (control) => {
      if (control.type === 'runtime.reply.delta') showDelta(streams, control.payload, logger);
      else void answerApproval(control, approvalHandler, channel, logger);
    },
    async drain(reason) {
      abort.abort();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, 5_000));
      logger.info({ reason }, 'connector stopping');
      await Promise.race([running, grace]);
    },
  };
}

async function loadEntry(plan: ConnectionPlan): Promise<ConnectorEntry> {
  let module: unknown;
  try {
    module = await import(plan.connectorEntryPath);
  } catch (error) {
    throw new GoondanError('E_CONNECTOR_LOAD', 'user', `Connector '${plan.connectorName}': cannot load ${plan.connectorEntryPath}: ${errorMessageOf(error)}`, {
      details: { file: plan.connectorEntryPath },
      suggestion: 'Check the Connector entry path and that the module imports cleanly (`goondan validate`).',
    });
  }
  const entry = typeof module === 'object' && module !== null && 'default' in module ? module.default : undefined;
  if (!isConnectorEntry(entry)) {
    throw new GoondanError('E_CONNECTOR_ENTRY', 'user', `Connector '${plan.connectorName}': ${plan.connectorEntryPath} has no default export function`, {
      details: { file: plan.connectorEntryPath },
      suggestion: 'Export it: export default async function (ctx) { … }',
    });
  }
  return entry;
}

function isConnectorEntry(value: unknown): value is ConnectorEntry {
  return typeof value === 'function';
}

function toAgentEvent(plan: ConnectionPlan, self: EventSource, logger: RootLogger, event: ConnectorEvent, replyTo?: { target: string; correlationId: string }): AgentEvent {
  if (!validateConnectorEvent(event)) throw new Error(`invalid connector event: ${describeErrors(validateConnectorEvent.errors)}`);
  if (!plan.events.some((e) => e.name === event.name)) logger.warn({ event: event.name }, 'event name is not declared by the connector');
  const message = event.message;
  const input = message.type === 'text' ? message.text : message.type === 'image' ? `[image] ${message.url}` : `[file ${message.name}] ${message.url}`;
  // Connector properties reach the agent in AgentEvent.source (SPEC.md §6; a §9.11 gap in the reference).
  // They go first so that a property called kind, name or event cannot disguise the sender.
  const reserved = Object.keys(event.properties ?? {}).filter((key) => key in self || key === 'event');
  if (reserved.length > 0) logger.warn({ event: event.name, properties: reserved }, 'connector properties with reserved names are dropped');
  return makeEvent(`connector.${event.name}`, { ...(event.properties ?? {}), ...self, event: event.name }, {
    input,
    instanceKey: event.instanceKey,
    metadata: { connection: plan.name, message: { ...message }, ...(event.idempotencyKey !== undefined ? { idempotencyKey: event.idempotencyKey } : {}) },
    ...(replyTo ? { replyTo } : {}),
  });
}

/** A chunk of a streaming reply to the request's `onText` (a late chunk, after the reply, has no one to go to). */
function showDelta(streams: Map<string, (stepId: string, text: string) => void>, delta: ControlPayloads['runtime.reply.delta'], logger: RootLogger): void {
  try {
    streams.get(delta.correlationId)?.(delta.stepId, delta.text);
  } catch (error) {
    logger.warn({ err: error, correlationId: delta.correlationId }, 'onText of a streaming request threw; chunk dropped');
  }
}

async function answerApproval(
  control: ControlMessage,
  handler: ((prompt: ConnectorApprovalPrompt) => Promise<{ approved: boolean; scope: 'once' | 'session' }>) | undefined,
  channel: ShellChannel,
  logger: RootLogger,
): Promise<void> {
  if (control.type !== 'runtime.approval.prompt') {
    logger.warn({ type: control.type }, 'control event not expected by a connector; dropped');
    return;
  }
  const prompt = control.payload;
  let decision: { approved: boolean; scope: 'once' | 'session' } = { approved: false, scope: 'once' };
  let reason = '';
  if (!handler) reason = 'this connector cannot ask for approvals';
  else {
    try {
      decision = await handler({ ...prompt });
    } catch (error) {
      reason = `approval prompt failed: ${errorMessageOf(error)}`;
    }
  }
  channel.control('runtime.approval.decision', { id: prompt.id, approved: decision.approved, scope: decision.scope, reason });
}
