/**
 * `goondan instance delete` with no daemon running: the instance's directory goes, and with it the
 * events still queued in its inbox (accepted before the daemon stopped). Each is recorded given up
 * (INSTANCE_DELETED) in the workspace's event ledger, as the daemon does, so that
 * `GET /v1/events/{id}` and a retry under its Idempotency-Key tell the truth after the next start
 * rather than "queued" for good. Only while no daemon runs: the ledger has one writer.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import { runtimeError } from '../../shared/errors/index.ts';
import { workspaceDir } from '../../shared/state-paths.ts';
import { DurableInbox } from '../delivery/durable-inbox.ts';
import { EventLedger } from '../delivery/event-ledger.ts';
import type { InstanceDir } from './instance-dirs.ts';

/** Removes the instances' directories; returns how many queued events were given up. */
export function deleteOffline(stateRoot: string, targets: readonly InstanceDir[]): number {
  let givenUp = 0;
  const ledgers = new Map<string, EventLedger>();
  try {
    for (const target of targets) {
      const queued = DurableInbox.open(join(target.dir, 'inbox.jsonl'), target.agentName, target.instanceKey).unacked();
      if (queued.length > 0) {
        let ledger = ledgers.get(target.workspaceId);
        if (!ledger) {
          ledger = new EventLedger(join(workspaceDir(stateRoot, target.workspaceId), 'event-ledger.jsonl'), new FsyncPolicy('always'));
          ledgers.set(target.workspaceId, ledger);
        }
        const reason = `instance '${target.instanceKey}' of agent '${target.agentName}' was deleted before this event ran`;
        for (const event of queued) ledger.dead(event.id, reason, runtimeError('INSTANCE_DELETED', reason));
        givenUp += queued.length;
      }
      rmSync(target.dir, { recursive: true, force: true });
    }
  } finally {
    for (const ledger of ledgers.values()) ledger.close();
  }
  return givenUp;
}
