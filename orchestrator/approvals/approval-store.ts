/**
 * Where approvals live across crashes and restarts (issue 10): one `approvals.json` per instance
 * holding its approval records — pending or decided, each with its `id`, `createdAt` and
 * `expiresAt` — and its "always for this session" grants. Written whole (temp file + rename) on
 * every change; read back when the daemon starts.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FsyncPolicy } from '../../shared/durability/fsync-policy.ts';
import type { ApprovalPrompt } from '../../shared/ipc/control-protocol.ts';
import { instancePaths, instancesDir } from '../../shared/state-paths.ts';
import type { ApprovalDecision } from '../../shared/types/extensions.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';

export type ApprovalOutcome = ApprovalDecision & { reason: string };

export interface ApprovalRecord {
  approval: ApprovalPrompt;
  /** `<eventId>/<toolCallId>`: a resumed turn asking again for the same call finds this record. */
  key?: string;
  decision?: ApprovalOutcome & { decidedAt: string };
}

export interface InstanceApprovals {
  agent: string;
  instanceKey: string;
  records: ApprovalRecord[];
  /** Tool names approved "always for this session" on this instance. */
  sessionGrants: string[];
}

const FILE = 'approvals.json';
const isInstanceApprovals = compiledValidator<InstanceApprovals>({
  options: { allErrors: true, strict: false },
  schema: {
    type: 'object',
    required: ['agent', 'instanceKey', 'records', 'sessionGrants'],
    properties: {
      agent: { type: 'string' },
      instanceKey: { type: 'string' },
      sessionGrants: { type: 'array', items: { type: 'string' } },
      records: {
        type: 'array',
        items: {
          type: 'object',
          required: ['approval'],
          properties: {
            key: { type: 'string' },
            approval: {
              type: 'object',
              required: ['id', 'agent', 'instanceKey', 'toolName', 'toolCallId', 'args', 'reason', 'createdAt', 'expiresAt'],
              properties: { id: { type: 'string' }, createdAt: { type: 'string' }, expiresAt: { type: 'string' }, args: { type: 'object' } },
            },
            decision: { type: 'object', required: ['approved', 'scope', 'decidedBy', 'reason', 'decidedAt'] },
          },
        },
      },
    },
  },
});

export class ApprovalStore {
  constructor(
    private readonly stateRoot: string,
    private readonly workspaceId: () => string,
    private readonly fsync: FsyncPolicy,
  ) {}

  save(state: InstanceApprovals): void {
    const path = this.pathOf(state.agent, state.instanceKey);
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(state)}\n`);
    this.fsync.syncPath(tmp);
    renameSync(tmp, path);
  }

  /** Every instance's approvals (daemon start); unreadable files are reported and skipped. */
  loadAll(onBadFile: (path: string) => void): InstanceApprovals[] {
    const dir = instancesDir(this.stateRoot, this.workspaceId());
    if (!existsSync(dir)) return [];
    const out: InstanceApprovals[] = [];
    for (const name of readdirSync(dir)) {
      const path = join(dir, name, FILE);
      if (!existsSync(path)) continue;
      try {
        const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
        if (isInstanceApprovals(value)) out.push(value);
        else onBadFile(path);
      } catch {
        onBadFile(path);
      }
    }
    return out;
  }

  /** One instance's approvals (cluster mode: as its restored state has them); undefined when it has none. */
  load(agent: string, instanceKey: string, onBadFile: (path: string) => void): InstanceApprovals | undefined {
    const path = this.pathOf(agent, instanceKey);
    if (!existsSync(path)) return undefined;
    try {
      const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (isInstanceApprovals(value) && value.agent === agent && value.instanceKey === instanceKey) return value;
    } catch {
      // reported below
    }
    onBadFile(path);
    return undefined;
  }

  private pathOf(agent: string, instanceKey: string): string {
    return join(instancePaths(this.stateRoot, this.workspaceId(), agent, instanceKey).root, FILE);
  }
}
