/**
 * Issue 10, durable approvals in the broker: records outlive the broker (a daemon restart is a new
 * broker over the same files), a resumed turn asking again for the same call attaches to its
 * record, and askTimeoutSeconds counts from createdAt — an approval whose expiresAt passed while
 * the daemon was down is a timeout deny at once.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { instancePaths } from '../../shared/state-paths.ts';
import { ApprovalBroker, type ApprovalOutcome } from '../../orchestrator/approvals/approval-broker.ts';
import { ApprovalStore } from '../../orchestrator/approvals/approval-store.ts';

function broker(stateRoot: string): ApprovalBroker {
  return new ApprovalBroker({
    logger: pino({ level: 'silent' }),
    httpApprovals: true,
    promptInteractive: () => false,
    store: new ApprovalStore(stateRoot, () => 'ws', new FsyncPolicy('never')),
  });
}

const ask = { agent: 'a', instanceKey: 'k', toolName: 'bash__exec', toolCallId: 'call_1', args: { command: 'ls' }, reason: 'default ask', processKey: 'a:k', eventId: 'evt_1' };

describe('approvals are durable records', () => {
  test('a new broker over the same state lists the pending approval with its id and createdAt; the same call asking again attaches to it', async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-approvals-'));
    const before = broker(stateRoot);
    before.open(ask, 600_000, () => {});
    const [original] = before.list();
    before.clear();

    const after = broker(stateRoot);
    after.restore();
    expect(after.list()).toEqual([original!]);
    const outcome = new Promise<ApprovalOutcome>((resolve) => after.open({ ...ask, processKey: 'a:k#2' }, 600_000, resolve));
    expect(after.list()).toHaveLength(1);
    expect(after.decide(original!.id, { approved: true, scope: 'once', decidedBy: 'http', reason: '' })).toBe(true);
    expect(await outcome).toMatchObject({ approved: true, decidedBy: 'http' });
    after.clear();
  });

  test('a decision made while the asking turn was gone answers its resumed ask at once', async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-approvals-'));
    const b = broker(stateRoot);
    b.open(ask, 600_000, () => {});
    b.dropFor('a:k');
    const [pending] = b.list();
    expect(b.decide(pending!.id, { approved: false, scope: 'once', decidedBy: 'http', reason: 'no' })).toBe(true);
    const outcome = await new Promise<ApprovalOutcome>((resolve) => b.open(ask, 600_000, resolve));
    expect(outcome).toMatchObject({ approved: false, decidedBy: 'http' });
    b.clear();
  });

  test('askTimeoutSeconds counts from createdAt: an approval that expired while the daemon was down is denied on restore', async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-approvals-'));
    const file = join(instancePaths(stateRoot, 'ws', 'a', 'k').root, 'approvals.json');
    const b = broker(stateRoot);
    b.open(ask, 600_000, () => {});
    b.clear();
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    stored.records[0].approval.expiresAt = new Date(Date.now() - 1000).toISOString();
    await Bun.write(file, JSON.stringify(stored));

    const restored = broker(stateRoot);
    restored.restore();
    const deadline = Date.now() + 10_000;
    while (restored.list().length > 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(restored.list()).toEqual([]);
    expect(JSON.parse(readFileSync(file, 'utf8')).records[0].decision).toMatchObject({ approved: false, decidedBy: 'timeout' });
    const resumed = await new Promise<ApprovalOutcome>((resolve) => restored.open(ask, 600_000, resolve));
    expect(resumed).toMatchObject({ approved: false, decidedBy: 'timeout' });
    restored.clear();
  });
});

describe('what the lifecycle asks about waiting instances (issue 12)', () => {
  test('a process waits from its ask until the decision; the instance has an undecided approval until then, also with no process', () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-approvals-'));
    const b = broker(stateRoot);
    expect(b.waitingSince('a:k')).toBeUndefined();
    const before = Date.now();
    b.open(ask, 600_000, () => {});
    expect(b.waitingSince('a:k')).toBeGreaterThanOrEqual(before);
    expect(b.waitingSince('b:k')).toBeUndefined();
    b.dropFor('a:k');
    // The process is gone (passivated): it waits no more, the instance still does.
    expect(b.waitingSince('a:k')).toBeUndefined();
    expect(b.hasUndecided('a', 'k')).toBe(true);
    const [pending] = b.list();
    b.decide(pending!.id, { approved: true, scope: 'once', decidedBy: 'http', reason: '' });
    expect(b.hasUndecided('a', 'k')).toBe(false);
    b.clear();
  });

  test('a decision with nobody waiting for it is announced (it wakes a passivated instance); one with a waiter goes to the waiter only', () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-approvals-'));
    const away: string[] = [];
    const b = new ApprovalBroker({
      logger: pino({ level: 'silent' }),
      httpApprovals: true,
      promptInteractive: () => false,
      store: new ApprovalStore(stateRoot, () => 'ws', new FsyncPolicy('never')),
      onDecidedWhileAway: (agent, instanceKey) => away.push(`${agent}/${instanceKey}`),
    });
    const answered: boolean[] = [];
    b.open(ask, 600_000, (outcome) => answered.push(outcome.approved));
    b.open({ ...ask, toolCallId: 'call_2' }, 600_000, () => {});
    const [first, second] = b.list();
    b.decide(first!.id, { approved: true, scope: 'once', decidedBy: 'http', reason: '' });
    expect({ answered, away }).toEqual({ answered: [true], away: [] });
    b.dropFor('a:k');
    b.decide(second!.id, { approved: false, scope: 'once', decidedBy: 'http', reason: '' });
    expect(away).toEqual(['a/k']);
    b.clear();
  });
});
