/**
 * Errors say what to send, in plain English: a bad approval decision names the allowed values, a
 * reused Idempotency-Key agrees in number ("its input differs"), a missing resource takes "an".
 */
import { describe, expect, test } from 'bun:test';
import { ApprovalBroker } from '../../orchestrator/approvals/approval-broker.ts';
import { approvalRoutes } from '../../orchestrator/approvals/approval-routes.ts';
import { assertSameRequest, inputDigest } from '../../orchestrator/routing/request-digest.ts';
import { ResourceIndex } from '../../shared/config/resource-index.ts';
import pino from 'pino';

describe('error wording', () => {
  test('POST /v1/approvals/{id} with a bad decision names approve and deny', async () => {
    const broker = new ApprovalBroker({ logger: pino({ level: 'silent' }), httpApprovals: true, promptInteractive: () => false });
    const route = approvalRoutes(broker).find((r) => r.method === 'POST');
    const path = '/v1/approvals/appr_1';
    const match = path.match(route?.pattern ?? /$^/);
    if (!route || !match) throw new Error('no approval decision route');
    const response = await route.handle(new Request(`http://127.0.0.1${path}`, { method: 'POST', body: JSON.stringify({ decision: 'yes' }) }), match);
    expect(response.status).toBe(400);
    expect(JSON.parse(await response.text())).toMatchObject({ error: { message: '/decision: must be one of: "approve", "deny"' } });
  });

  test('IDEMPOTENCY_KEY_REUSED: "its input differs"; two things "differ"', () => {
    const first = { agent: 'a', instanceKey: 'k', inputDigest: inputDigest('one') };
    expect(() => assertSameRequest('key-1', first, { agent: 'a', instanceKey: 'k', input: 'two' })).toThrow(/its input differs$/);
    expect(() => assertSameRequest('key-1', first, { agent: 'b', instanceKey: 'k', input: 'two' })).toThrow(/now\) and input differ$/);
  });

  test('a reference to nothing suggests "define an Agent", "define a Tool"', () => {
    const index = new ResourceIndex<{ kind: 'Agent' | 'Tool'; name: string; packageName: string }>([]);
    expect(index.resolve({ kind: 'Agent', name: 'writer' }, '')).toMatchObject({ ok: false, suggestion: 'define an Agent named "writer"' });
    expect(index.resolve({ kind: 'Tool', name: 'bash' }, '')).toMatchObject({ ok: false, suggestion: 'define a Tool named "bash"' });
  });
});
