/**
 * `GET /v1/usage`: model usage and cost per agent instance, per trace (`?traceId=`: one trace,
 * every agent it reached) and today's (UTC) totals that day budgets count against.
 */
import { jsonResponse } from '../http/http-errors.ts';
import type { ApiRoute } from '../http/api-server.ts';
import type { UsageLedger } from './usage-ledger.ts';
import { usageRow } from './usage-row.ts';

export function usageRoutes(ledger: UsageLedger): ApiRoute[] {
  return [
    {
      method: 'GET',
      pattern: /^\/v1\/usage$/,
      handle: async (request) => {
        const traceId = new URL(request.url).searchParams.get('traceId');
        if (traceId) return jsonResponse(200, { traceId, usage: usageRow(ledger.trace(traceId)) });
        const instancesToday = Object.fromEntries(ledger.instances().map((i) => [i.instanceKey, usageRow(ledger.instanceToday(i.instanceKey))]));
        return jsonResponse(200, {
          instances: ledger.instances().map((i) => ({ agent: i.agent, instanceKey: i.instanceKey, usage: usageRow(i.totals) })),
          traces: ledger.traces().map((t) => ({ traceId: t.traceId, usage: usageRow(t.totals) })),
          today: { day: ledger.dayName, swarm: usageRow(ledger.swarmToday()), instances: instancesToday },
        });
      },
    },
  ];
}
