/** Swarm rules (SPEC.md §1.2): at least one agent, entryAgent is one of them, and agents have a swarm to run in. */
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import type { RefResolutions } from './check-refs.ts';
import type { ProblemSink } from './problem-sink.ts';

/** The agents a swarm lists, resolved (unresolvable ones are skipped). */
export function swarmAgents(swarm: NamedDocument, resolutions: RefResolutions): NamedDocument[] {
  const agents = specOf(swarm)?.agents;
  if (!Array.isArray(agents)) return [];
  return agents.flatMap((_, i) => {
    const agent = resolutions.get(swarm, ['spec', 'agents', i]);
    return agent ? [agent] : [];
  });
}

export function checkSwarm(doc: NamedDocument, resolutions: RefResolutions, sink: ProblemSink): void {
  const agents = specOf(doc)?.agents;
  if (!Array.isArray(agents)) return;
  if (agents.length === 0) {
    sink.at(doc, ['spec', 'agents'], 'E_CONFIG_SWARM_NO_AGENTS', `Swarm "${doc.name}" lists no agents`, { suggestion: 'agents:\n  - ref: Agent/<name>' });
    return;
  }
  const entry = resolutions.get(doc, ['spec', 'entryAgent']);
  if (!entry || resolutions.broken.has(doc)) return;
  const members = swarmAgents(doc, resolutions);
  if (!members.includes(entry)) {
    sink.at(doc, ['spec', 'entryAgent'], 'E_CONFIG_ENTRY_AGENT_NOT_IN_SWARM', `entryAgent "${entry.name}" is not one of the swarm's agents (${members.map((a) => a.name).join(', ')})`, {
      suggestion: `add "Agent/${entry.name}" to spec.agents, or pick one of them as entryAgent`,
    });
  }
}

/**
 * What `goondan run` refuses must not pass `validate`: a bundle with agents but no Swarm has nothing
 * to run, and an empty one nothing at all. A package of tools, extensions or connectors needs none.
 */
export function checkSomethingToRun(userDocs: readonly NamedDocument[], documents: number, mainFile: string | undefined, sink: ProblemSink): void {
  if (userDocs.some((doc) => doc.kind === 'Swarm')) return;
  const agents = userDocs.filter((doc) => doc.kind === 'Agent');
  const [agent] = agents;
  if (agent) {
    const names = agents.map((doc) => doc.name);
    sink.at(agent, [], 'E_CONFIG_SWARM_NOT_FOUND', `the bundle defines ${names.length === 1 ? 'an agent' : 'agents'} (${names.join(', ')}) but no Swarm: goondan run has nothing to start`, {
      suggestion: `kind: Swarm\nmetadata:\n  name: default\nspec:\n  entryAgent: Agent/${agent.name}\n  agents: [${names.map((name) => `Agent/${name}`).join(', ')}]`,
    });
    return;
  }
  if (documents === 0 && mainFile !== undefined) {
    sink.inFile(mainFile, 'E_CONFIG_SWARM_NOT_FOUND', 'the bundle defines no resources', { suggestion: 'start from a template: goondan init' });
  }
}
