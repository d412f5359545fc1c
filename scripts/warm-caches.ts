#!/usr/bin/env bun
/**
 * Builds what goondan otherwise builds on its first run into `node_modules/.cache/goondan`: the
 * agent entry bundle, the schema validators a daemon and its agents use, their bytecode, and the
 * bytecode builds of the built-in modules. For
 * installs whose package directory the daemon cannot write to (the container image runs as a user
 * that does not own /opt/goondan): there every agent would start from the sources and compile its
 * validators with ajv's compiler (~20 MB of RSS and tens of milliseconds each).
 * It runs the offline demo swarm once (the mock model) and answers one message on it.
 *   bun scripts/warm-caches.ts
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orchestrator } from '../orchestrator/daemon/orchestrator.ts';
import { readApiToken } from '../orchestrator/http/api-credential.ts';
import { freshAgentBundle } from '../orchestrator/process/agent-bundle.ts';
import { baseModuleBuildDir, buildBaseModules } from '../orchestrator/process/base-module-builds.ts';
import { prepareValidatorBytecode } from '../orchestrator/process/validator-bytecode.ts';
import { createLogger } from '../shared/logger.ts';
import { prepareDeclaredValidators } from '../shared/validation/compiled-validator.ts';

const DEMO = join(import.meta.dir, '..', 'bundles', 'demo');
// Children inherit the environment: their start and drain lines are not news here.
process.env.GOONDAN_LOG_LEVEL ??= 'warn';
const logger = createLogger({ name: 'warm-caches' });

const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-warm-caches-'));
try {
  const orchestrator = new Orchestrator({ bundlePath: DEMO, stateRoot, host: '127.0.0.1', port: 0, watch: false, processEnv: process.env, logger, childOutput: 'inherit', interactive: false });
  await orchestrator.start();
  try {
    // Through the API, as users send: to the swarm's entry agent.
    const response = await fetch(`${orchestrator.apiUrl}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${readApiToken(stateRoot)}` },
      body: JSON.stringify({ input: 'hello', instanceKey: 'warm-caches' }),
    });
    if (response.status !== 200) throw new Error(`the demo swarm answered HTTP ${response.status}: ${await response.text()}`);
  } finally {
    await orchestrator.stop();
  }
  // Every validator the daemon's modules declare, also those this short run had no message for.
  prepareDeclaredValidators();
  // The daemon's own pass stops with it: the validators made since are built here.
  await prepareValidatorBytecode(logger, () => false);
  if (!freshAgentBundle()) throw new Error('the agent entry could not be bundled (see the warning above)');
  // Also made by the daemon's pass when it finished; here its error, if any, fails the install.
  if (!existsSync(baseModuleBuildDir())) await buildBaseModules(baseModuleBuildDir());
  console.log('goondan: caches warm (agent entry bundle, validators and their bytecode, built-in modules’ bytecode)');
} finally {
  rmSync(stateRoot, { recursive: true, force: true });
}
process.exit(0);
