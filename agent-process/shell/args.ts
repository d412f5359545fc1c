/** Launch arguments of an AgentProcess (SPEC.md §2.1): set by the orchestrator, never by users. */
import { parseArgs } from 'node:util';

export interface AgentProcessArgs {
  bundleDir: string;
  agentName: string;
  instanceKey: string;
  stateRoot: string;
  swarm?: string;
}

export function parseAgentProcessArgs(argv: string[]): AgentProcessArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      'bundle-dir': { type: 'string' },
      'agent-name': { type: 'string' },
      'instance-key': { type: 'string' },
      'state-root': { type: 'string' },
      swarm: { type: 'string' },
    },
    strict: true,
  });
  const required = (name: 'bundle-dir' | 'agent-name' | 'instance-key' | 'state-root'): string => {
    const value = values[name];
    if (!value) throw new Error(`missing --${name}: the agent process is started by 'goondan run', not by hand`);
    return value;
  };
  return {
    bundleDir: required('bundle-dir'),
    agentName: required('agent-name'),
    instanceKey: required('instance-key'),
    stateRoot: required('state-root'),
    ...(values.swarm ? { swarm: values.swarm } : {}),
  };
}
