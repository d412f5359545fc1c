/**
 * Every 503 a caller should simply retry (CLUSTER_UNAVAILABLE: a node of the cluster busy,
 * restarting, cut off or being taken over) says when, with Retry-After — on every route, through
 * one helper (http-errors.ts). Before, only the approval decision's 503 had it: an event lookup's
 * "unknown here, retry" (`GET /v1/events/{id}`) and whatever reached the server's general error
 * path were bare 503s. Other 503s (the daemon stopping) send none. A stand-in daemon.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { ApprovalBroker } from '../../orchestrator/approvals/approval-broker.ts';
import { approvalRoutes } from '../../orchestrator/approvals/approval-routes.ts';
import { RuntimeEventBus } from '../../orchestrator/daemon/runtime-event-bus.ts';
import { ApiCredentials } from '../../orchestrator/http/api-credential.ts';
import { type DaemonApi, startApiServer } from '../../orchestrator/http/api-server.ts';
import { RETRY_AFTER_SECONDS } from '../../orchestrator/http/http-errors.ts';
import type { ExternalSubmission, Submitted } from '../../orchestrator/routing/external-submissions.ts';
import { GoondanError, runtimeError } from '../../shared/errors/index.ts';
import { createLogger } from '../../shared/logger.ts';

const TOKEN = 'the-right-token-for-this-test';
const logger = createLogger({ name: 'test', level: 'silent' });
const clusterUnavailable = (what: string) => new GoondanError('CLUSTER_UNAVAILABLE', 'system', `whether ${what} is unknown here: node nb did not answer`);

/** `input` says how the cluster treats the event: refused, outcome unknown (a keyed retry), or a failure thrown. */
function submit(submission: ExternalSubmission): Submitted {
  const base = { eventId: 'evt_1', traceId: 'trace_1', instanceKey: submission.instanceKey ?? 'k', stored: Promise.resolve() };
  if (submission.input === 'refused') return { ...base, accepted: Promise.reject(new Error('no answer from JetStream')) };
  if (submission.input === 'outcome unknown') return { ...base, reply: Promise.resolve({ status: 'error', output: '', error: runtimeError('CLUSTER_UNAVAILABLE', 'the node that accepted it does not answer') }) };
  throw clusterUnavailable('the instance is held');
}

const daemon: DaemonApi = {
  isReady: () => true,
  entryAgent: () => 'writer',
  isKnownAgent: (name) => name === 'writer',
  agents: () => ['writer'],
  processes: async () => {
    throw new GoondanError('DAEMON_STOPPING', 'system', 'the daemon is shutting down');
  },
  submit,
  eventRecord: () => Promise.reject(clusterUnavailable("event 'evt_x' was accepted")),
  runtimeEvents: new RuntimeEventBus(),
  metricsText: async () => '',
  deleteInstance: async () => ({}),
  restartInstance: async () => ({}),
  countMalformedBody: () => {},
  extraRoutes: approvalRoutes(new ApprovalBroker({ logger, httpApprovals: true, promptInteractive: () => false }), () => {}, {
    list: async () => [],
    decide: () => Promise.reject(clusterUnavailable("approval 'appr_x' is still pending")),
  }),
};

const server = startApiServer({ host: '127.0.0.1', port: 0, credentials: new ApiCredentials([TOKEN]), logger, daemon });
afterAll(() => server.stop(true));

function call(path: string, body?: object): Promise<Response> {
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  return fetch(`http://127.0.0.1:${server.port}${path}`, body ? { method: 'POST', headers, body: JSON.stringify(body) } : { headers });
}

async function expectRetryShortly(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
  expect(JSON.stringify(await response.json())).toContain('CLUSTER_UNAVAILABLE');
}

describe('a 503 CLUSTER_UNAVAILABLE', () => {
  test('says Retry-After for an event lookup the cluster cannot answer (GET /v1/events/{id})', async () => {
    await expectRetryShortly(await call('/v1/events/evt_x'));
  });

  test('says Retry-After from the general error path, in goondan’s shape and in OpenAI’s', async () => {
    await expectRetryShortly(await call('/v1/events', { agent: 'writer', input: 'thrown', wait: true }));
    await expectRetryShortly(await call('/v1/chat/completions', { model: 'writer', messages: [{ role: 'user', content: 'thrown' }] }));
  });

  test('says Retry-After for an event the cluster refused and for a keyed event whose outcome is unknown', async () => {
    await expectRetryShortly(await call('/v1/events', { agent: 'writer', input: 'refused', wait: false }));
    await expectRetryShortly(await call('/v1/events', { agent: 'writer', input: 'outcome unknown', wait: true }));
  });

  test('says Retry-After for an approval decision whose holder does not answer, as before', async () => {
    await expectRetryShortly(await call('/v1/approvals/appr_x', { decision: 'approve' }));
  });

  test('is the only 503 that does: the daemon stopping sends none', async () => {
    const stopping = await call('/v1/processes');
    expect(stopping.status).toBe(503);
    expect(stopping.headers.get('retry-after')).toBeNull();
  });
});
