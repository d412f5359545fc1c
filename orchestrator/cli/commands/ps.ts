/** `goondan ps`: the daemon's process table. */
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { isJsonObject, type JsonObject } from '../../../shared/types/json.ts';
import { type CliCommand, type CliIo, parseOptions } from '../command.ts';
import { connectToDaemon } from '../daemon-client.ts';
import { formatDaemonFailure } from '../daemon-failure.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { formatTable } from '../format-table.ts';

const usage = `Usage: goondan ps [--json] [--state-root DIR]

List the processes of the running daemon: agent instances and connectors with pid, status,
consecutive crashes, restarts, resident memory, model tokens (input + output) and cost
(Model.spec.pricing) since the daemon started, and the last error (why it could not start, or
how it last crashed). In cluster mode (goondan run --cluster) the processes of every node, with
a NODE column.`;

const LAST_ERROR_WIDTH = 72;

function formatLastError(value: unknown): string {
  if (!isJsonObject(value)) return '-';
  const text = `${String(value.code)}: ${String(value.message)}`;
  return text.length > LAST_ERROR_WIDTH ? `${text.slice(0, LAST_ERROR_WIDTH - 1)}…` : text;
}

function formatBytes(value: unknown): string {
  return typeof value === 'number' ? `${(value / 1024 / 1024).toFixed(1)} MB` : '-';
}

/** Input + output tokens of the instance's model calls. */
function formatTokens(usage: unknown): string {
  return isJsonObject(usage) && typeof usage.tokens === 'number' ? String(usage.tokens) : '-';
}

/** Cost per currency, e.g. `0.0123 USD` (six significant digits are enough to read). */
function formatCost(usage: unknown): string {
  if (!isJsonObject(usage) || !isJsonObject(usage.cost)) return '-';
  const parts = Object.entries(usage.cost).map(([currency, amount]) => `${Number(Number(amount).toPrecision(6))} ${currency}`);
  return parts.length > 0 ? parts.join(' + ') : '-';
}

async function ps(argv: string[], io: CliIo): Promise<ExitCode> {
  const values = parseOptions({ args: argv, options: { json: { type: 'boolean' }, 'state-root': { type: 'string' } } }).values;
  const client = connectToDaemon(resolveStateRoot(values['state-root']));
  const response = await client.request('GET', '/v1/processes');
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    io.stderr(formatDaemonFailure('goondan ps', client, response.status, body));
    return EXIT.runtimeError;
  }
  if (!isJsonObject(body) || !Array.isArray(body.processes)) {
    io.stderr(`goondan ps: unexpected response ${response.status} from ${client.url}`);
    return EXIT.runtimeError;
  }
  const rows = body.processes.filter(isJsonObject);
  if (values.json) {
    io.stdout(JSON.stringify(rows, null, 2));
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout('no processes (agents start on their first event)');
    return EXIT.ok;
  }
  const name = (r: JsonObject) => (r.kind === 'agent' ? String(r.agent) : r.kind === 'pool' ? '(warm)' : `connection/${String(r.connection)}`);
  // Cluster mode: the rows of every node, each naming where it runs.
  const clustered = rows.some((r) => typeof r.node === 'string');
  const nodeColumn = (r: JsonObject) => (clustered ? [String(r.node ?? '-')] : []);
  io.stdout(
    formatTable(
      [...(clustered ? ['NODE'] : []), 'NAME', 'INSTANCE', 'PID', 'STATUS', 'CRASHES', 'RESTARTS', 'RSS', 'TOKENS', 'COST', 'LAST ERROR'],
      rows.map((r) => [
        ...nodeColumn(r),
        name(r),
        String(r.instanceKey),
        String(r.pid ?? '-'),
        String(r.status),
        String(r.crashes),
        String(r.restarts),
        formatBytes(r.rss),
        formatTokens(r.usage),
        formatCost(r.usage),
        formatLastError(r.lastError),
      ]),
    ),
  );
  return EXIT.ok;
}

export const psCommand: CliCommand = { name: 'ps', summary: 'list the processes of the running daemon', usage, run: ps };
