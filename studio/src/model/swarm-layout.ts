/**
 * Where the Swarm view draws its nodes: connections in the first column, then agents by call
 * depth from the entry agent (breadth-first over the calls seen); agents never reached by a call
 * share the column after the entry agent. Pure.
 */
export interface LayoutInput {
  entryAgent: string;
  agents: readonly string[];
  connections: ReadonlyArray<{ name: string; agents: readonly string[] }>;
  calls: ReadonlyArray<{ from: string; to: string }>;
}

export interface NodePlace {
  id: string;
  kind: 'agent' | 'connection';
  column: number;
  row: number;
}

export function layoutSwarm(input: LayoutInput): NodePlace[] {
  const first = input.connections.length > 0 ? 1 : 0;
  const depth = new Map<string, number>([[input.entryAgent, first]]);
  const queue = [input.entryAgent];
  while (queue.length > 0) {
    const from = queue.shift() ?? '';
    for (const call of input.calls) {
      if (call.from !== from || depth.has(call.to)) continue;
      depth.set(call.to, (depth.get(from) ?? first) + 1);
      queue.push(call.to);
    }
  }
  // Agents known only from traffic (e.g. removed from the bundle since) are still drawn.
  const agents = [...new Set([...input.agents, ...input.calls.flatMap((c) => [c.from, c.to])])];
  for (const agent of agents) if (!depth.has(agent)) depth.set(agent, first + 1);
  const rows = new Map<number, number>();
  const place = (id: string, kind: NodePlace['kind'], column: number): NodePlace => {
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    return { id, kind, column, row };
  };
  return [
    ...input.connections.map((c) => place(c.name, 'connection', 0)),
    ...agents.sort((a, b) => (depth.get(a) ?? 0) - (depth.get(b) ?? 0)).map((a) => place(a, 'agent', depth.get(a) ?? first)),
  ];
}
