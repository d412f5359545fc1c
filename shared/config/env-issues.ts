/**
 * Missing environment variables met while building plans. Required ones make a builder throw;
 * optional ones leave the field unset; `validate` shows both as warnings.
 */
import type { ConfigProblem, LoadedResource } from '../types/bundle.ts';
import type { ValueSource } from '../types/resources.ts';
import { problemAt } from './bundle-internals.ts';
import { ConfigError } from './config-error.ts';
import type { PathSegment } from './json-path.ts';
import { lookupValueSource } from './value-source.ts';

export interface EnvIssue {
  problem: ConfigProblem;
  required: boolean;
}

export class EnvIssues {
  readonly issues: EnvIssue[] = [];

  /** Reads a ValueSource; records a missing variable and returns undefined. */
  read(
    source: ValueSource,
    env: Record<string, string | undefined>,
    owner: LoadedResource,
    segments: readonly PathSegment[],
    required: boolean,
    why: string,
  ): string | undefined {
    const lookup = lookupValueSource(source, env);
    if (lookup.ok) return lookup.value;
    this.issues.push({
      required,
      problem: problemAt(
        owner,
        segments,
        'E_CONFIG_ENV_MISSING',
        `environment variable ${lookup.missingEnv} is not set (${owner.kind}/${owner.name} ${why})`,
        `set ${lookup.missingEnv} in the environment, in .env / .env.local beside the bundle, or pass --env-file`,
      ),
    });
    return undefined;
  }

  throwIfRequiredMissing(): void {
    const required = this.issues.filter((i) => i.required).map((i) => i.problem);
    if (required.length > 0) throw new ConfigError(required);
  }
}
