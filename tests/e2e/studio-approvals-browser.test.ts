/**
 * Tool approvals from the studio (issue 13), in a real headless Chromium against a daemon whose
 * policy asks before `file-system__write` of a Markdown file (GOONDAN_APPROVALS=http): the ask
 * appears in Approvals with what the call does (summary, display name, icon), the tool's preview,
 * its arguments and the rule; Approve completes the turn,
 * Deny answers the model with E_TOOL_DENIED, Approve for session stops the asking.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { browserWithDaemon, docsScreenshot, withStudio } from './browser-harness.ts';
import { REPO_ROOT } from './daemon-harness.ts';


const studio = browserWithDaemon(join(REPO_ROOT, 'tests/fixtures/e2e/policy'), { env: { GOONDAN_APPROVALS: 'http' } });
const open = studio.open({ hash: 'approvals' });
const daemon = () => studio.daemon();

describe('approvals in the studio', () => {
  test('a policy ask appears in Approvals with its summary, preview, arguments and rule; clicking Approve completes the turn', async () => {
    await withStudio('approve', open, async ({ page }) => {
      await page.getByText('No tool calls are waiting for approval.').waitFor();
      const turn = daemon().send({ input: 'write notes', instanceKey: 'studio-approve' });
      const item = page.getByRole('listitem', { name: /Write notes\.md for coder @ studio-approve/ });
      await item.waitFor();
      await item.getByText('📝 Write file').waitFor();
      await item.getByText('+remember the milk').waitFor();
      await item.getByText('notes need a human look').waitFor();
      await item.getByText('"path": "notes.md"').waitFor();
      expect(await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /Approvals/ }).textContent()).toContain('1');
      await docsScreenshot(page, 'approvals');
      await item.getByRole('button', { name: 'Approve', exact: true }).click();
      const { body } = await turn;
      expect(body.output).toBe('write: notes.md');
      await page.getByText('No tool calls are waiting for approval.').waitFor();
    });
  });

  test('Deny answers the model with E_TOOL_DENIED', async () => {
    await withStudio('deny', open, async ({ page }) => {
      const turn = daemon().send({ input: 'write notes', instanceKey: 'studio-deny' });
      const item = page.getByRole('listitem', { name: /coder @ studio-deny/ });
      await item.getByRole('button', { name: 'Deny' }).click();
      const { body } = await turn;
      expect(String(body.output)).toContain('E_TOOL_DENIED');
      expect(String(body.output)).toContain('not approved (http)');
    });
  });

  test('Approve for session lets the same tool run again in that session without asking', async () => {
    await withStudio('approve-session', open, async ({ page }) => {
      const first = daemon().send({ input: 'write notes', instanceKey: 'studio-session' });
      await page.getByRole('listitem', { name: /coder @ studio-session/ }).getByRole('button', { name: 'Approve for session' }).click();
      expect((await first).body.output).toBe('write: notes.md');
      expect((await daemon().send({ input: 'write notes', instanceKey: 'studio-session' })).body.output).toBe('write: notes.md');
    });
  });
});
