/**
 * `GET /v1/traces/{id}` resolves a unique prefix of 8 or more characters, as `goondan logs --trace`
 * does; an unknown, ambiguous or malformed one is an error that says what to send instead of "no route".
 */
import { describe, expect, test } from 'bun:test';
import { type InspectSource, inspectRoutes } from '../../orchestrator/inspect/inspect-routes.ts';
import type { TraceSummary } from '../../orchestrator/inspect/runtime-event-log.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import { testSwarmPlan } from '../helpers/test-plans.ts';

const ONE = `abcdef12${'0'.repeat(24)}`;
const TWIN_A = `99887766${'1'.repeat(24)}`;
const TWIN_B = `99887766${'2'.repeat(24)}`;
const summary = (traceId: string): TraceSummary => ({ traceId, startedAt: '', agent: 'a', instanceKey: 'k', agents: ['a'], status: 'ok', durationMs: 1, turns: 1 });

// The cluster view stands in for the state directory: every read goes through it.
const source: InspectSource = {
  stateRoot: '/nonexistent',
  swarm: () => testSwarmPlan('s', ['a']),
  connections: () => [],
  cluster: {
    instances: async () => [],
    conversation: async () => undefined,
    traces: async () => [ONE, TWIN_A, TWIN_B].map(summary),
    traceEvents: async (traceId) => (traceId === ONE ? [{ type: 'turn.started', traceId } as unknown as RuntimeEvent] : []),
  },
};

interface Answer {
  traceId?: string;
  error?: { code: string; message: string; suggestion?: string };
}

async function get(path: string): Promise<{ status: number; body: Answer }> {
  for (const route of inspectRoutes(source)) {
    const match = path.match(route.pattern);
    if (route.method === 'GET' && match) {
      const response = await route.handle(new Request(`http://127.0.0.1${path}`), match);
      const body: Answer = JSON.parse(await response.text());
      return { status: response.status, body };
    }
  }
  throw new Error(`no route for ${path}`);
}

describe('GET /v1/traces/{id or prefix}', () => {
  test('the whole id, and a unique prefix of 8 or more characters (any case), give the trace', async () => {
    expect(await get(`/v1/traces/${ONE}`)).toMatchObject({ status: 200, body: { traceId: ONE } });
    expect(await get('/v1/traces/abcdef12')).toMatchObject({ status: 200, body: { traceId: ONE } });
    expect(await get('/v1/traces/ABCDEF120')).toMatchObject({ status: 200, body: { traceId: ONE } });
  });

  test('a prefix of several traces names them; one of none, or too short, says what to send', async () => {
    const twins = await get('/v1/traces/99887766');
    expect(twins).toMatchObject({ status: 400, body: { error: { code: 'E_HTTP_AMBIGUOUS_TRACE' } } });
    expect(twins.body.error?.message).toContain(TWIN_A);
    expect(await get('/v1/traces/12345678')).toMatchObject({ status: 404, body: { error: { code: 'E_HTTP_UNKNOWN_TRACE' } } });
    const short = await get('/v1/traces/abcdef1');
    expect(short).toMatchObject({ status: 404, body: { error: { code: 'E_HTTP_UNKNOWN_TRACE' } } });
    expect(short.body.error?.suggestion).toContain('first 8 or more');
  });
});
