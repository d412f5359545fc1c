/** Which swarm to run: the named one; else the only one; else "default" (SPEC.md §8 `run`). */
import type { LoadedBundle } from '../types/bundle.ts';
import { bundleProblem } from './bundle-internals.ts';
import { didYouMean } from './closest-names.ts';
import { ConfigError } from './config-error.ts';
import { swarmsOf } from './plan-resolver.ts';

export function selectSwarm(bundle: LoadedBundle, swarmName?: string): string {
  const names = swarmsOf(bundle).map((s) => s.name);
  if (swarmName !== undefined) {
    if (names.includes(swarmName)) return swarmName;
    throw new ConfigError([
      bundleProblem(bundle, 'E_CONFIG_SWARM_NOT_FOUND', `no Swarm named "${swarmName}"`, didYouMean(swarmName, names) ?? `swarms: ${names.join(', ') || '(none)'}`),
    ]);
  }
  const [only] = names;
  if (names.length === 1 && only !== undefined) return only;
  if (names.includes('default')) return 'default';
  throw new ConfigError([
    names.length === 0
      ? bundleProblem(bundle, 'E_CONFIG_SWARM_NOT_FOUND', 'the bundle defines no Swarm', 'add a Swarm resource with entryAgent and agents')
      : bundleProblem(bundle, 'E_CONFIG_SWARM_NOT_FOUND', `the bundle defines several swarms (${names.join(', ')}) and none is named "default"`, 'choose one with -s <swarm>'),
  ]);
}
