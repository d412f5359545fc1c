/** The config plane: load and validate bundles, build the plans the runtime consumes. */
export { loadBundle, type LoadBundleOptions } from './load-bundle.ts';
export { BundleNotFoundError } from './bundle-not-found-error.ts';
export { bundleDirOf, discoverBundle } from './discovery.ts';
export { ConfigError } from './config-error.ts';
export { selectSwarm } from './select-swarm.ts';
export { buildSwarmPlan, DEFAULT_MAX_STEPS_PER_TURN, DEFAULT_SHUTDOWN_GRACE_SECONDS } from './swarm-plan.ts';
export { buildAgentPlan, DEFAULT_ERROR_MESSAGE_LIMIT } from './agent-plan.ts';
export { buildConnectionPlans } from './connection-plans.ts';
export { loadEnv, parseDotenv, type LoadEnvOptions } from './env-file.ts';
export { formatHelpPages, formatProblemsText } from './format-problems.ts';
export { PROBLEM_CODES, type ProblemCode } from './problem-codes.ts';
export { BASE_PACKAGE_DIR } from './base-package.ts';
export { secretEnvName, valueSourceEnvName } from './value-source.ts';
export { PROVIDER_KEY_ENV } from './model-plan.ts';
export { allAgentPlans } from './all-agent-plans.ts';
