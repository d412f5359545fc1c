/**
 * Tool declarations through the real daemon (issue 17): a tool's own `evaluatePolicy` asks before a
 * production deploy although no permission policy is declared; the approval record of
 * `GET /v1/approvals` carries the call's summary, display name, icon and the tool's preview; the
 * `tool.called` event and `goondan logs` show the summary; with nobody to ask the call is denied.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { GOONDAN_BIN, REPO_ROOT, readRuntimeEvents, sharedDaemon, startDaemon, waitUntil } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/declared');

describe("a tool's own ask, with no policy declared (GOONDAN_APPROVALS=http)", () => {
  const daemon = sharedDaemon(BUNDLE, { env: { GOONDAN_APPROVALS: 'http' } });

  test('GET /v1/approvals shows the summary, display name, icon and preview; approving runs the call', async () => {
    const pending = daemon().send({ input: 'deploy billing to prod', instanceKey: 'prod-1' });
    let approval: Record<string, unknown> | undefined;
    await waitUntil(async () => {
      const body = (await (await daemon().api('/v1/approvals')).json()) as { approvals: Array<Record<string, unknown>> };
      approval = body.approvals[0];
      return approval !== undefined;
    }, 'the approval of the prod deploy');
    expect(approval).toMatchObject({
      agent: 'ops',
      toolName: 'deploy__run',
      summary: 'Deploy billing to prod',
      displayName: 'Deploy',
      icon: '🚀',
      preview: 'service: billing\nimage: billing:latest → prod',
      reason: "the tool's own check: production deploys need a person",
    });
    const decided = await daemon().api(`/v1/approvals/${String(approval?.id)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve' }) });
    expect(decided.status).toBe(200);
    expect((await pending).body.output).toBe('deployed billing to prod');
  });

  test('a call the tool does not object to runs without asking', async () => {
    expect((await daemon().send({ input: 'deploy billing to staging', instanceKey: 'staging-1' })).body.output).toBe('deployed billing to staging');
    expect(((await (await daemon().api('/v1/approvals')).json()) as { approvals: unknown[] }).approvals).toEqual([]);
  });

  test('tool.called carries the summary; goondan logs prints it', async () => {
    await daemon().send({ input: 'deploy search to staging', instanceKey: 'logs-1' });
    const events = await readRuntimeEvents(daemon().stateRoot, 'declared', 'ops', 'logs-1');
    expect(events.find((e) => e.type === 'tool.called')).toMatchObject({ summary: 'Deploy search to staging', displayName: 'Deploy', icon: '🚀' });
    const proc = Bun.spawn([GOONDAN_BIN, 'logs', '--instance', 'logs-1', '--state-root', daemon().stateRoot], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
    const [out, code] = [await new Response(proc.stdout).text(), await proc.exited];
    expect(code).toBe(0);
    expect(out.split('\n').find((line) => line.includes('tool.called'))).toContain('🚀 Deploy "Deploy search to staging"');
  });
});

describe('with nobody to ask', () => {
  test("the tool's ask is a deny that says so", async () => {
    const daemon = await startDaemon(BUNDLE);
    try {
      const output = String((await daemon.send({ input: 'deploy billing to prod', instanceKey: 'nobody' })).body.output);
      expect(output).toContain('E_TOOL_DENIED');
      expect(output).toContain('not approved (no-approver)');
      expect(output).toContain('production deploys need a person');
    } finally {
      await daemon.stop();
      daemon.cleanup();
    }
  });
});
