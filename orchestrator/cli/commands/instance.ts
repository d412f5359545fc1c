/**
 * `goondan instance list|delete KEY`: conversations (instance keys) and their agents' state.
 * Delete goes through the running daemon when there is one (it stops the processes first),
 * and removes the state directories directly only when no daemon runs under the state root:
 * several running daemons (and no GOONDAN_API_URL to pick one) are refused, never bypassed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { isJsonObject } from '../../../shared/types/json.ts';
import { type CliCommand, type CliIo, UsageError, parseOptions } from '../command.ts';
import { DaemonNotFoundError, connectToDaemon } from '../daemon-client.ts';
import { formatDaemonFailure } from '../daemon-failure.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { formatTable } from '../format-table.ts';
import { type InstanceDir, listInstanceDirs, workspacesToRead } from '../instance-dirs.ts';
import { workspacesToShow } from '../log-workspaces.ts';
import { deleteOffline } from '../offline-deletion.ts';

const usage = `Usage: goondan instance list [--json] [--state-root DIR]
       goondan instance delete KEY [--state-root DIR]

list    every instance key with its agents, workspace (the swarm), message count and last update:
        of the daemon the other commands talk to (GOONDAN_API_URL's, else the only one running),
        else of every workspace under the state root
delete  stop the instance's agent processes and delete their messages, inbox and extension state,
        through the running daemon (when several run, GOONDAN_API_URL picks one); with no
        daemon running, the state directories of KEY in every workspace are removed directly;
        a daemon that does not answer GET /healthz within GOONDAN_CLI_ANSWER_TIMEOUT_MS (default
        30000) while it deletes is given up on: exit 1`;

function messageCount(dir: string): number {
  try {
    return readFileSync(join(dir, 'messages', 'base.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  } catch {
    return 0;
  }
}

function allInstances(stateRoot: string): InstanceDir[] {
  return workspacesToRead(stateRoot).flatMap((ws) => listInstanceDirs(stateRoot, ws));
}

async function instance(argv: string[], io: CliIo): Promise<ExitCode> {
  const parsed = parseOptions({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, 'state-root': { type: 'string' } } });
  const [action, key, ...extra] = parsed.positionals;
  const stateRoot = resolveStateRoot(parsed.values['state-root']);
  if (action === 'delete') {
    if (key === undefined) throw new UsageError("delete needs the instance KEY (see 'goondan instance list')");
    if (key === '') throw new UsageError('the instance KEY must not be empty');
    if (extra.length > 0) throw new UsageError(`delete takes one KEY; unexpected: ${extra.join(' ')}`);
    return deleteInstance(stateRoot, key, io);
  }
  if (action === 'list') {
    if (key !== undefined) throw new UsageError(`list takes no arguments; unexpected: ${[key, ...extra].join(' ')}`);
    const rows = workspacesToShow(stateRoot, 'instance list')
      .flatMap((ws) => listInstanceDirs(stateRoot, ws))
      .map((i) => ({ ...i, messages: messageCount(i.dir) }));
    if (parsed.values.json) {
      io.stdout(JSON.stringify(rows, null, 2));
      return EXIT.ok;
    }
    if (rows.length === 0) {
      io.stdout(`no instances under ${stateRoot}`);
      return EXIT.ok;
    }
    io.stdout(
      formatTable(
        ['INSTANCE', 'AGENT', 'WORKSPACE', 'MESSAGES', 'UPDATED'],
        rows.map((r) => [r.instanceKey, r.agentName, r.workspaceId, String(r.messages), r.updatedAt ?? '-']),
      ),
    );
    return EXIT.ok;
  }
  throw new UsageError(action === undefined ? 'expected list or delete' : `unknown action '${action}': expected list or delete`);
}

async function deleteInstance(stateRoot: string, key: string, io: CliIo): Promise<ExitCode> {
  try {
    const client = connectToDaemon(stateRoot);
    // The daemon answers once the instance's processes stopped (a running turn may finish first).
    const response = await client.request('DELETE', `/v1/instances/${encodeURIComponent(key)}`, undefined, {
      answers: 'after-work',
      ifHung: "whether it deleted anything is unknown: see 'goondan instance list'",
    });
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      io.stderr(formatDaemonFailure('goondan instance delete', client, response.status, body));
      return EXIT.runtimeError;
    }
    if (!isJsonObject(body)) {
      io.stderr(`goondan instance delete: unexpected response ${response.status} from ${client.url}`);
      return EXIT.runtimeError;
    }
    const deleted = Array.isArray(body.deleted) ? body.deleted.length : 0;
    const discarded = Array.isArray(body.discarded) ? body.discarded.length : 0;
    const stopped = Number(body.stopped ?? 0);
    // Nothing there: only "no instance", not a "deleted …" line that names nothing deleted.
    if (deleted === 0 && stopped === 0 && discarded === 0) return notFound(key, io);
    const givenUp = discarded > 0 ? `, ${discarded} queued event(s) given up` : '';
    io.stdout(`deleted instance '${key}': ${stopped} process(es) stopped, ${deleted} state director${deleted === 1 ? 'y' : 'ies'} removed${givenUp}`);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof DaemonNotFoundError)) throw error;
  }
  const targets = allInstances(stateRoot).filter((i) => i.instanceKey === key);
  if (targets.length === 0) return notFound(key, io);
  const givenUp = deleteOffline(stateRoot, targets);
  io.stdout(`deleted instance '${key}': ${targets.length} state director${targets.length === 1 ? 'y' : 'ies'} removed${givenUp > 0 ? `, ${givenUp} queued event(s) given up` : ''}`);
  return EXIT.ok;
}

function notFound(key: string, io: CliIo): ExitCode {
  io.stderr(`goondan instance delete: no instance '${key}' (see 'goondan instance list')`);
  return EXIT.runtimeError;
}

export const instanceCommand: CliCommand = { name: 'instance', summary: 'list or delete conversation instances and their state', usage, run: instance };
