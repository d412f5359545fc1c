/**
 * ConnectorProcess entry (SPEC.md §6): one per Connection. Loads the connector's entry module and
 * runs its default export with a ConnectorContext; emitted events go to the orchestrator, which
 * applies the Connection's ingress rules. The connector owns its protocol, nothing else.
 */
import { parseArgs } from 'node:util';
import { Ajv } from 'ajv';
import { CONTROL, ORCHESTRATOR, controlEvent, inReplyToOf, makeEvent } from '../../shared/ipc/control-events.ts';
import { createParentChannelTransport } from '../../shared/ipc/parent-channel-transport.ts';
import { TIMEOUT_KEY } from '../../shared/ipc/request-metadata.ts';
import { replyOutcomeOf, type ReplyOutcome } from '../../shared/ipc/reply-events.ts';
import { newId } from '../../shared/ids.ts';
import { createLogger } from '../../shared/logger.ts';
import type { ConnectionPlan } from '../../shared/types/bundle.ts';
import type { ConnectorContext, ConnectorEvent, ConnectorReply } from '../../shared/types/connectors.ts';
import type { EventSource } from '../../shared/types/events.ts';
import pino from 'pino';

const { values } = parseArgs({ args: process.argv.slice(2), options: { connection: { type: 'string' } } });
const connectionName = values.connection ?? '';
const logFile = process.env.GOONDAN_LOG_FILE;
const logger = createLogger({
  name: 'connector',
  base: { connection: connectionName },
  ...(logFile ? { destination: pino.destination({ dest: logFile, append: true, sync: true }) } : {}),
});

const ajv = new Ajv({ allErrors: true, strict: false });
const validatePlan = ajv.compile<ConnectionPlan>({
  type: 'object',
  required: ['name', 'connectorName', 'connectorEntryPath', 'events', 'config', 'secrets', 'rules'],
  properties: { name: { const: connectionName }, config: { type: 'object' }, secrets: { type: 'object' } },
});
const validateConnectorEvent = ajv.compile<ConnectorEvent>({
  type: 'object',
  required: ['name', 'message', 'instanceKey'],
  properties: {
    name: { type: 'string', minLength: 1 },
    instanceKey: { type: 'string', minLength: 1 },
    properties: { type: 'object', additionalProperties: { type: 'string' } },
    message: {
      oneOf: [
        { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string' } } },
        { type: 'object', required: ['type', 'url'], properties: { type: { const: 'image' }, url: { type: 'string' } } },
        { type: 'object', required: ['type', 'url', 'name'], properties: { type: { const: 'file' }, url: { type: 'string' }, name: { type: 'string' } } },
      ],
    },
  },
});

const planJson: unknown = JSON.parse(process.env.GOONDAN_CONNECTION_PLAN ?? 'null');
if (!validatePlan(planJson)) {
  logger.fatal({ problems: ajv.errorsText(validatePlan.errors) }, 'GOONDAN_CONNECTION_PLAN is missing or malformed');
  process.exit(1);
}
const plan: ConnectionPlan = planJson;
const transport = createParentChannelTransport((problems) => logger.warn({ problems }, 'dropped a malformed IPC message'));
const self: EventSource = { kind: 'connector', name: connectionName };
const abort = new AbortController();
const waiters = new Map<string, (outcome: ReplyOutcome) => void>();
let approvalHandler: Parameters<ConnectorContext['onApproval']>[0] | undefined;

transport.onDisconnect(() => {
  abort.abort();
  process.exit(0);
});
process.on('SIGINT', () => {});

function toAgentEvent(event: ConnectorEvent, replyTo?: { target: string; correlationId: string }) {
  const checked = validateConnectorEvent(event);
  if (!checked) throw new Error(`invalid connector event: ${ajv.errorsText(validateConnectorEvent.errors)}`);
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
    metadata: { connection: connectionName, message: { ...message } },
    ...(replyTo ? { replyTo } : {}),
  });
}

const ctx: ConnectorContext = {
  async emit(event) {
    transport.send({ type: 'event', from: connectionName, to: ORCHESTRATOR, payload: toAgentEvent(event) });
  },
  async request(event, options = {}): Promise<ConnectorReply> {
    const correlationId = newId('corr');
    const payload = toAgentEvent(event, { target: connectionName, correlationId });
    if (options.timeoutMs) payload.metadata = { ...payload.metadata, [TIMEOUT_KEY]: options.timeoutMs };
    const reply = new Promise<ReplyOutcome>((resolve) => waiters.set(correlationId, resolve));
    transport.send({ type: 'event', from: connectionName, to: ORCHESTRATOR, payload });
    const outcome = await reply;
    return {
      status: outcome.status,
      text: outcome.status === 'ok' ? outcome.output : (outcome.errorMessage ?? outcome.status),
      ...(outcome.turnId ? { turnId: outcome.turnId } : {}),
      ...(outcome.traceId ? { traceId: outcome.traceId } : {}),
    };
  },
  config: plan.config,
  secrets: plan.secrets,
  logger,
  signal: abort.signal,
  onApproval(handler) {
    approvalHandler = handler;
  },
};

async function answerApproval(metadata: Record<string, unknown>): Promise<void> {
  const id = typeof metadata.id === 'string' ? metadata.id : '';
  let decision = { approved: false, scope: 'once' as 'once' | 'session' };
  let reason = '';
  if (!approvalHandler) reason = 'this connector cannot ask for approvals';
  else {
    try {
      decision = await approvalHandler({
        id,
        agent: String(metadata.agent ?? ''),
        instanceKey: String(metadata.instanceKey ?? ''),
        toolName: String(metadata.toolName ?? ''),
        args: typeof metadata.args === 'object' && metadata.args !== null ? { ...metadata.args } : {},
        reason: String(metadata.reason ?? ''),
        expiresAt: String(metadata.expiresAt ?? ''),
      });
    } catch (error) {
      reason = `approval prompt failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  transport.send({
    type: 'event',
    from: connectionName,
    to: ORCHESTRATOR,
    payload: controlEvent(CONTROL.approvalDecision, self, { id, approved: decision.approved, scope: decision.scope, reason }),
  });
}

let running: Promise<void> = Promise.resolve();
transport.onMessage((message) => {
  if (message.type === 'shutdown') {
    abort.abort();
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, Math.min(message.payload.gracePeriodMs, 5_000)));
    void Promise.race([running.catch(() => undefined), timeout]).then(() => {
      transport.send({ type: 'shutdown_ack', from: connectionName, to: ORCHESTRATOR, payload: { connection: connectionName } });
      setTimeout(() => process.exit(0), 20);
    });
    return;
  }
  if (message.type !== 'event') return;
  if (message.payload.type === CONTROL.approvalPrompt) {
    void answerApproval(message.payload.metadata ?? {});
    return;
  }
  const correlationId = inReplyToOf(message.payload);
  const resolve = correlationId ? waiters.get(correlationId) : undefined;
  if (correlationId && resolve) {
    waiters.delete(correlationId);
    resolve(replyOutcomeOf(message.payload));
  }
});

try {
  const module: unknown = await import(plan.connectorEntryPath);
  const entry = typeof module === 'object' && module !== null && 'default' in module ? module.default : undefined;
  if (typeof entry !== 'function') throw new Error(`${plan.connectorEntryPath} has no default export function`);
  running = Promise.resolve(entry(ctx)).then(() => undefined);
  transport.send({ type: 'event', from: connectionName, to: ORCHESTRATOR, payload: controlEvent(CONTROL.connectorStarted, self) });
  await running;
  // During a shutdown the message handler acks and exits; otherwise the connector is simply done.
  if (!abort.signal.aborted) {
    logger.info('connector finished');
    process.exit(0);
  }
} catch (error) {
  logger.error({ err: error }, 'connector failed');
  transport.send({
    type: 'event',
    from: connectionName,
    to: ORCHESTRATOR,
    payload: controlEvent(CONTROL.connectorFailed, self, { message: error instanceof Error ? error.message : String(error) }),
  });
  setTimeout(() => process.exit(1), 20);
}
