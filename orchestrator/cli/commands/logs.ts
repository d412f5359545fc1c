/**
 * `goondan logs`: the runtime-event observation log (turn.*, step.*, tool.*) of every instance,
 * merged by time, filtered by agent / instance / trace, optionally followed. Reads the state
 * directory, so it works with or without a running daemon: the selected daemon's workspace, else
 * every workspace (each line then names its own).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolveStateRoot } from '../../../shared/state-paths.ts';
import { terminalJson, terminalLine } from '../../../shared/terminal-text.ts';
import { isJsonObject, type JsonObject } from '../../../shared/types/json.ts';
import { type CliCommand, type CliIo, UsageError, nonEmpty, parseOptions } from '../command.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { listInstanceDirs, runtimeEventsFile } from '../instance-dirs.ts';
import { allWorkspaces, selectedWorkspace } from '../log-workspaces.ts';

const usage = `Usage: goondan logs [options]

Print runtime events (turn.*, step.*, tool.*) recorded by the agents, oldest first; a failed
turn, step or tool call shows why: errorCode=… errorMessage=….

Options:
  -f, --follow          keep printing new events
      --agent NAME      only this agent
      --instance KEY    only this instance key
      --trace ID        only this trace: its id, or the first 8 or more characters of it
                        (as printed here)
  -n, --lines N         print at most the last N events first (default 200)
      --json            raw JSON lines
      --state-root DIR  state directory (default $GOONDAN_STATE_ROOT, else ~/.goondan)

Which swarm: the daemon's that the other commands talk to (GOONDAN_API_URL's, else the only one
running under the state root). With none running, or several and no GOONDAN_API_URL, every
workspace is read, and when there are several each line begins with its workspace (the swarm's
name; --json: a workspaceId field).`;

const FOLLOW_POLL_MS = 250;

/** An event read, with its workspace; `named` is the width its name is printed at (0: not printed). */
interface Collected {
  event: JsonObject;
  workspaceId: string;
  named: number;
}

interface Filters {
  agent?: string;
  instance?: string;
  trace?: string;
}

function accepts(event: JsonObject, f: Filters): boolean {
  return (!f.agent || event.agentName === f.agent) && (!f.instance || event.instanceKey === f.instance) && (!f.trace || String(event.traceId).startsWith(f.trace));
}

/** The lines below print 8 characters of a trace id: that much (or more) of it selects the trace. */
const TRACE_PREFIX = /^[0-9a-f]{8,32}$/;

function traceFilter(value: string): string {
  const prefix = value.toLowerCase();
  if (!TRACE_PREFIX.test(prefix)) throw new UsageError(`--trace needs a trace id or its first 8 or more hex characters (as 'goondan logs' prints it), got '${value}'`);
  return prefix;
}

export function formatRuntimeEvent(event: JsonObject): string {
  const details: string[] = [];
  // issue 17: "Run git status" (with the export's icon and display name) says more than the tool name.
  if (typeof event.summary === 'string') details.push([event.icon, event.displayName, JSON.stringify(event.summary)].filter((part) => typeof part === 'string').join(' '));
  for (const key of ['toolName', 'stepIndex', 'stepCount', 'toolCallCount', 'status', 'finishReason', 'errorMessage', 'errorCode']) {
    if (event[key] !== undefined) details.push(`${key}=${JSON.stringify(event[key])}`);
  }
  // Why a tool call, step or turn failed: the events carry it as `error: {code, message}`.
  if (isJsonObject(event.error)) {
    for (const [key, field] of [['errorCode', 'code'], ['errorMessage', 'message']] as const) {
      if (event.error[field] !== undefined) details.push(`${key}=${JSON.stringify(event.error[field])}`);
    }
  }
  if (typeof event.duration === 'number') details.push(`${event.duration.toFixed(1)}ms`);
  const trace = typeof event.traceId === 'string' ? event.traceId.slice(0, 8) : '-';
  // Events hold agents' and callers' text (summaries, instance keys, errors): nothing in it may drive the terminal.
  return terminalLine(`${String(event.timestamp)}  ${String(event.agentName)}@${String(event.instanceKey)}  ${String(event.type).padEnd(15)} trace=${trace}  ${details.join(' ')}`.trimEnd());
}

/** Reads new complete lines of a file from `offset`; returns them and the next offset. */
function readNewLines(path: string, offset: number): { lines: string[]; offset: number } {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { lines: [], offset };
  }
  if (size < offset) offset = 0; // truncated or replaced
  if (size === offset) return { lines: [], offset };
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(size - offset);
    readSync(fd, buffer, 0, buffer.length, offset);
    const text = buffer.toString('utf8');
    const end = text.lastIndexOf('\n');
    if (end < 0) return { lines: [], offset };
    return { lines: text.slice(0, end).split('\n').filter((l) => l.trim() !== ''), offset: offset + Buffer.byteLength(text.slice(0, end + 1)) };
  } finally {
    closeSync(fd);
  }
}

function parse(line: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function logs(argv: string[], io: CliIo): Promise<ExitCode> {
  const values = parseOptions({
      args: argv,
      options: {
        follow: { type: 'boolean', short: 'f' },
        agent: { type: 'string' },
        instance: { type: 'string' },
        trace: { type: 'string' },
        lines: { type: 'string', short: 'n' },
        json: { type: 'boolean' },
        'state-root': { type: 'string' },
      },
    }).values;
  const limit = values.lines === undefined ? 200 : Number(values.lines);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--lines must be a non-negative integer, got '${values.lines}'`);
  const stateRoot = resolveStateRoot(values['state-root']);
  const agent = nonEmpty(values.agent, '--agent', 'every agent');
  const instance = nonEmpty(values.instance, '--instance', 'every instance');
  const filters: Filters = {
    ...(agent !== undefined ? { agent } : {}),
    ...(instance !== undefined ? { instance } : {}),
    ...(values.trace !== undefined ? { trace: traceFilter(values.trace) } : {}),
  };
  const selected = selectedWorkspace(stateRoot);
  const print = ({ event, workspaceId, named }: Collected) => {
    if (values.json) io.stdout(terminalJson(JSON.stringify(named ? { ...event, workspaceId } : event)));
    else io.stdout(named ? `${terminalLine(workspaceId).padEnd(named)}  ${formatRuntimeEvent(event)}` : formatRuntimeEvent(event));
  };
  const offsets = new Map<string, number>();
  // The first read includes the rotated generation (runtime-events.1.jsonl); following reads only the current one.
  const collect = (initial: boolean): Collected[] => {
    const fresh: Collected[] = [];
    const workspaces = selected !== undefined ? [selected] : allWorkspaces(stateRoot);
    // Several workspaces read: each line names its own (padded to the longest name), else none does.
    const named = workspaces.length > 1 ? Math.max(...workspaces.map((w) => w.length)) : 0;
    for (const workspaceId of workspaces) {
      for (const instance of listInstanceDirs(stateRoot, workspaceId)) {
        if (filters.agent && instance.agentName !== filters.agent) continue;
        if (filters.instance && instance.instanceKey !== filters.instance) continue;
        const file = runtimeEventsFile(instance);
        const older = initial ? readNewLines(file.replace(/\.jsonl$/, '.1.jsonl'), 0).lines : [];
        const { lines, offset } = readNewLines(file, offsets.get(file) ?? 0);
        offsets.set(file, offset);
        for (const line of [...older, ...lines]) {
          const event = parse(line);
          if (event && accepts(event, filters)) fresh.push({ event, workspaceId, named });
        }
      }
    }
    return fresh.sort((a, b) => String(a.event.timestamp).localeCompare(String(b.event.timestamp)));
  };
  const initial = collect(true);
  for (const line of initial.slice(Math.max(0, initial.length - limit))) print(line);
  const traces = new Set(initial.map((line) => line.event.traceId));
  if (filters.trace && traces.size > 1) io.stderr(`goondan logs: '${filters.trace}' begins ${traces.size} trace ids; give more of the id to see one trace`);
  if (!values.follow) return EXIT.ok;
  return new Promise<ExitCode>((resolve) => {
    const timer = setInterval(() => {
      for (const line of collect(false)) print(line);
    }, FOLLOW_POLL_MS);
    const stop = () => {
      clearInterval(timer);
      resolve(EXIT.ok);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export const logsCommand: CliCommand = { name: 'logs', summary: 'print (and follow) runtime events: turns, steps, tool calls', usage, run: logs };
