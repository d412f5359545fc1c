/** Two one-agent bundles on the mock model, of different swarms, for tests of several daemons under one state root. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const AGENT = 'echo';

/** Writes a bundle of swarm `swarm` (its workspace id is the same name) under `dir`; returns its directory. */
export function writeSwarmBundle(dir: string, swarm: string): string {
  const bundleDir = join(dir, swarm);
  mkdirSync(bundleDir, { recursive: true });
  writeFileSync(
    join(bundleDir, 'goondan.yaml'),
    [
      'apiVersion: goondan.ai/v1',
      'kind: Model',
      'metadata: { name: scripted }',
      'spec:',
      '  provider: mock',
      '  model: scripted',
      `  options: { default: "${swarm} got {{input}}" }`,
      '---',
      'apiVersion: goondan.ai/v1',
      'kind: Agent',
      `metadata: { name: ${AGENT} }`,
      'spec:',
      '  modelConfig: { modelRef: Model/scripted }',
      '---',
      'apiVersion: goondan.ai/v1',
      'kind: Swarm',
      `metadata: { name: ${swarm} }`,
      `spec: { entryAgent: Agent/${AGENT}, agents: [Agent/${AGENT}] }`,
      '',
    ].join('\n'),
  );
  return bundleDir;
}
