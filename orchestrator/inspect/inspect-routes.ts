/**
 * Read-only views of the swarm's state for the studio (and any client): the swarm and its call
 * graph, instances with their agents, an instance's conversation, and traces across instances.
 * Everything is read from the state directory the agents write; nothing here changes it.
 */
import { existsSync } from 'node:fs';
import { instancePaths } from '../../shared/state-paths.ts';
import type { ConnectionPlan, SwarmPlan } from '../../shared/types/bundle.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { listInstanceDirs, readMetadata, runtimeEventsFile } from '../cli/instance-dirs.ts';
import { type ApiRoute, pathSegment } from '../http/api-server.ts';
import { errorResponse, jsonResponse } from '../http/http-errors.ts';
import { readConversation } from './conversation-reader.ts';
import { callEdges, recentTraces, type TraceSummary, traceEvents } from './runtime-event-log.ts';
import { notATraceId, TRACE_ID_PATTERN, TRACE_PREFIX_PATTERN, traceOfPrefix } from './trace-lookup.ts';
import type { RuntimeEvent } from '../../shared/types/turns.ts';

export interface InspectSource {
  stateRoot: string;
  swarm(): SwarmPlan;
  connections(): ConnectionPlan[];
  /** Cluster mode: instances other nodes hold (cluster-inspect.ts). */
  cluster?: OtherNodesState;
}

/** One agent of one instance, as this node's state directory shows it. */
export interface InstanceEntry extends JsonObject {
  instanceKey: string;
  agent: string;
  status: string | null;
  updatedAt: string | null;
}

/** An instance's conversation as this node holds it. */
export interface LocalConversation extends JsonObject {
  updatedAt: string | null;
  messages: JsonObject[];
}

export interface OtherNodesState {
  instances(local: () => InstanceEntry[]): Promise<InstanceEntry[]>;
  conversation(agent: string, instanceKey: string, local: () => LocalConversation | undefined): Promise<LocalConversation | undefined>;
  traces(limit: number, local: () => TraceSummary[]): Promise<TraceSummary[]>;
  traceEvents(traceId: string, local: () => RuntimeEvent[]): Promise<RuntimeEvent[]>;
}

/** The runtime-event files of this node's instances. */
function localEventFiles(stateRoot: string, workspaceId: string): string[] {
  return listInstanceDirs(stateRoot, workspaceId).map(runtimeEventsFile);
}

/** This node's part of the latest traces. */
export function localTraces(stateRoot: string, workspaceId: string, limit: number): TraceSummary[] {
  return recentTraces(localEventFiles(stateRoot, workspaceId), limit);
}

/** This node's runtime events of one trace. */
export function localTraceEvents(stateRoot: string, workspaceId: string, traceId: string): RuntimeEvent[] {
  return traceEvents(localEventFiles(stateRoot, workspaceId), traceId);
}

/** This node's instances, an entry per agent. */
export function localInstances(stateRoot: string, workspaceId: string): InstanceEntry[] {
  return listInstanceDirs(stateRoot, workspaceId).map((dir) => ({ instanceKey: dir.instanceKey, agent: dir.agentName, status: dir.status ?? null, updatedAt: dir.updatedAt ?? null }));
}

/** This node's copy of an instance's conversation; undefined when it holds none. */
export function localConversation(stateRoot: string, workspaceId: string, agent: string, instanceKey: string): LocalConversation | undefined {
  const paths = instancePaths(stateRoot, workspaceId, agent, instanceKey);
  if (!existsSync(paths.root)) return undefined;
  const updatedAt = readMetadata(paths.metadata)?.updatedAt ?? null;
  // Typed records read from JSON files: JSON by construction.
  const messages = readConversation({ base: paths.baseMessages, edits: paths.baseEdits, events: paths.messageEvents }) as unknown as JsonObject[];
  return { updatedAt, messages };
}

const DEFAULT_TRACE_LIMIT = 50;
const MAX_TRACE_LIMIT = 500;

export function inspectRoutes(source: InspectSource): ApiRoute[] {
  return [
    {
      method: 'GET',
      pattern: /^\/v1\/swarm$/,
      handle: async () => {
        const swarm = source.swarm();
        const connections = source.connections().map((c) => ({
          name: c.name,
          connector: c.connectorName,
          agents: [...new Set(c.rules.map((r) => r.route.agent ?? swarm.entryAgent))],
        }));
        return stateResponse({ name: swarm.name, entryAgent: swarm.entryAgent, agents: swarm.agents, connections, calls: callEdges(localEventFiles(source.stateRoot, swarm.workspaceId)) });
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/instances$/,
      handle: async () => {
        const here = () => localInstances(source.stateRoot, source.swarm().workspaceId);
        const entries = source.cluster ? await source.cluster.instances(here) : here();
        const byKey = new Map<string, JsonObject[]>();
        for (const { instanceKey, ...agent } of entries) byKey.set(instanceKey, [...(byKey.get(instanceKey) ?? []), agent]);
        return jsonResponse(200, { instances: [...byKey].map(([instanceKey, agents]) => ({ instanceKey, agents })) });
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/instances\/([^/]+)\/messages$/,
      handle: async (request, match) => {
        const instanceKey = pathSegment(match[1]);
        const agent = new URL(request.url).searchParams.get('agent') ?? source.swarm().entryAgent;
        const local = () => localConversation(source.stateRoot, source.swarm().workspaceId, agent, instanceKey);
        const found = source.cluster ? await source.cluster.conversation(agent, instanceKey, local) : local();
        if (!found) {
          return errorResponse(404, 'E_HTTP_UNKNOWN_INSTANCE', `no state for agent '${agent}' under instance key '${instanceKey}'`, {
            suggestion: 'see GET /v1/instances for the instances and their agents',
          });
        }
        return stateResponse({ agent, instanceKey, messages: found.messages });
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/traces$/,
      handle: async (request) => {
        const raw = new URL(request.url).searchParams.get('limit');
        const limit = raw === null ? DEFAULT_TRACE_LIMIT : Number(raw);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TRACE_LIMIT) {
          return errorResponse(400, 'E_HTTP_BAD_QUERY', `?limit must be an integer from 1 to ${MAX_TRACE_LIMIT}, got '${raw}'`, { details: { path: '?limit' } });
        }
        const here = () => localTraces(source.stateRoot, source.swarm().workspaceId, limit);
        return stateResponse({ traces: source.cluster ? await source.cluster.traces(limit, here) : here() });
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/traces\/([^/]+)$/,
      handle: async (_request, match) => {
        const segment = pathSegment(match[1]);
        let traceId = segment;
        if (!TRACE_ID_PATTERN.test(segment)) {
          if (!TRACE_PREFIX_PATTERN.test(segment)) return notATraceId(segment);
          const here = () => localTraces(source.stateRoot, source.swarm().workspaceId, MAX_TRACE_LIMIT);
          const found = traceOfPrefix(segment, source.cluster ? await source.cluster.traces(MAX_TRACE_LIMIT, here) : here());
          if ('response' in found) return found.response;
          traceId = found.traceId;
        }
        const here = () => localTraceEvents(source.stateRoot, source.swarm().workspaceId, traceId);
        const events = source.cluster ? await source.cluster.traceEvents(traceId, here) : here();
        if (events.length === 0) {
          return errorResponse(404, 'E_HTTP_UNKNOWN_TRACE', `no runtime events of trace '${traceId}' in this swarm's state`, {
            suggestion: 'see GET /v1/traces for recent traces',
          });
        }
        return stateResponse({ traceId, events });
      },
    },
  ];
}

/** A body of typed records read from JSON files (JSON by construction, but not typed as JsonObject). */
function stateResponse(body: Record<string, unknown>): Response {
  return new Response(`${JSON.stringify(body)}\n`, { headers: { 'content-type': 'application/json' } });
}
