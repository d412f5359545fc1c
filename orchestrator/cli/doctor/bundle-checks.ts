/**
 * The bundle at PATH as goondan run would use it: it loads without errors; each Model's key is
 * set (the value is never printed) and a loopback endpoint answers; each stdio MCP server's
 * command can be found. Nothing to load at a PATH given is a failure; with no PATH and no bundle in
 * the current directory these checks are skipped with a warning.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { allAgentPlans, BundleNotFoundError, loadBundle, PROVIDER_KEY_ENV, valueSourceEnvName } from '../../../shared/config/index.ts';
import { workspaceIdFor } from '../../../shared/state-paths.ts';
import type { LoadedBundle, LoadedResource } from '../../../shared/types/bundle.ts';
import { isJsonObject } from '../../../shared/types/json.ts';
import type { ModelSpec } from '../../../shared/types/resources.ts';
import { shellWord } from '../shell-word.ts';
import { type DoctorCheck, fail, isLoopbackHost, ok, warn } from './doctor-check.ts';

const ENDPOINT_TIMEOUT_MS = 2_000;
const MCP_EXTENSION = 'mcp';
const BASE_PACKAGE = '@goondan/base';

/** `missing`: nothing to load at a PATH that was given (goondan run exits 3 there too). */
export async function loadForDoctor(path: string, env: Record<string, string | undefined>, pathGiven: boolean): Promise<{ check: DoctorCheck; bundle?: LoadedBundle; missing?: true }> {
  let bundle: LoadedBundle;
  try {
    bundle = await loadBundle(path, { env });
  } catch (error) {
    if (!BundleNotFoundError.isInstance(error)) throw error;
    if (pathGiven) return { check: fail(`nothing to load at ${path} (${error.reason})`, error.suggestion), missing: true };
    return { check: warn(`no bundle at ${path} (${error.reason}): bundle checks skipped`, 'pass the bundle directory: goondan doctor DIR') };
  }
  const inCwd = relative(process.cwd(), bundle.rootDir);
  const shown = inCwd === '' ? '.' : inCwd.startsWith('..') || isAbsolute(inCwd) ? bundle.rootDir : inCwd;
  if (bundle.errors.length > 0) {
    const first = bundle.errors[0];
    return { check: fail(`bundle ${shown} is invalid (${bundle.errors.length} error${bundle.errors.length === 1 ? '' : 's'}, first: ${first?.code} ${first?.message})`, `goondan validate ${shellWord(shown)}`) };
  }
  const own = bundle.resources.filter((r) => r.packageName === bundle.packageName).length;
  return { check: ok(`bundle ${shown} is valid (${own} resources)`), bundle };
}

/** The workspace ids of the bundle's own swarms: what `goondan run` of this bundle would run as. */
export function swarmWorkspaces(bundle: LoadedBundle): string[] {
  return bundle.resources
    .filter((r) => r.kind === 'Swarm' && r.packageName === bundle.packageName)
    .map((r) => workspaceIdFor(r.resource.kind === 'Swarm' && r.resource.spec.instanceKey !== undefined ? r.resource.spec.instanceKey : r.name));
}

function modelKeyCheck(resource: LoadedResource, spec: ModelSpec, env: Record<string, string | undefined>): DoctorCheck {
  const label = `Model/${resource.name} (${spec.provider}, ${spec.model})`;
  if (spec.provider === 'mock') return ok(`${label}: scripted, needs no key`);
  const fallback = PROVIDER_KEY_ENV[spec.provider];
  const fix = (name: string) => `set ${name} in the environment, in .env beside the bundle, or in a file passed with --env-file`;
  if (spec.apiKey !== undefined) {
    const name = valueSourceEnvName(spec.apiKey);
    if (name === undefined) return ok(`${label}: key written inline (prefer { valueFrom: { env: … } })`);
    if (env[name]) return ok(`${label}: key ${name} is set`);
    if (fallback && env[fallback]) return ok(`${label}: ${name} is not set; the provider's own ${fallback} is`);
    return fail(`${label}: key ${name} is not set`, fix(name));
  }
  if (fallback === undefined) return ok(`${label}: no key configured (most local OpenAI-compatible servers need none)`);
  return env[fallback] ? ok(`${label}: key ${fallback} is set`) : fail(`${label}: no apiKey and ${fallback} is not set`, fix(fallback));
}

async function endpointCheck(resource: LoadedResource, endpoint: string): Promise<DoctorCheck | undefined> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return fail(`Model/${resource.name}: endpoint '${endpoint}' is not a URL`, 'write spec.endpoint as a base URL, e.g. http://127.0.0.1:11434/v1');
  }
  if (!isLoopbackHost(url.hostname)) return undefined; // only this machine's servers are probed
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(ENDPOINT_TIMEOUT_MS), redirect: 'manual' });
    await response.body?.cancel();
    return ok(`Model/${resource.name}: endpoint ${endpoint} answers (HTTP ${response.status})`);
  } catch (error) {
    const reason = error instanceof Error ? (Reflect.get(error, 'code') ?? error.name) : String(error);
    return fail(`Model/${resource.name}: endpoint ${endpoint} does not answer (${String(reason)})`, `start the model server (e.g. ollama serve), or fix spec.endpoint`);
  }
}

export async function checkModels(bundle: LoadedBundle, env: Record<string, string | undefined>): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  for (const resource of bundle.resources) {
    if (resource.kind !== 'Model' || resource.resource.kind !== 'Model') continue;
    const { spec } = resource.resource;
    checks.push(modelKeyCheck(resource, spec, env));
    if (spec.endpoint !== undefined) {
      const reach = await endpointCheck(resource, spec.endpoint);
      if (reach) checks.push(reach);
    }
  }
  return checks;
}

function commandCheck(server: string, agent: string, command: string): DoctorCheck {
  const where = `MCP server '${server}' (agent ${agent}): command ${command}`;
  const found = isAbsolute(command) || command.includes('/') ? (existsSync(command) ? command : null) : Bun.which(command);
  if (found) return ok(`${where} → ${found}`);
  const hint = command === 'npx' || command === 'node' ? ' (it comes with Node.js: apt-get install -y nodejs npm)' : '';
  return fail(`${where} is not found${command.includes('/') ? '' : ' on PATH'}`, `install it${hint}, or fix config.servers.${server}.command of the mcp extension`);
}

export function checkMcpCommands(bundle: LoadedBundle, env: Record<string, string | undefined>): DoctorCheck[] {
  const seen = new Set<string>();
  const checks: DoctorCheck[] = [];
  for (const { plan } of allAgentPlans(bundle, env)) {
    for (const extension of plan.extensions) {
      if (extension.name !== MCP_EXTENSION || extension.packageName !== BASE_PACKAGE || !isJsonObject(extension.config.servers)) continue;
      for (const [server, settings] of Object.entries(extension.config.servers)) {
        if (!isJsonObject(settings) || typeof settings.command !== 'string') continue;
        const key = `${server}\0${settings.command}`;
        if (seen.has(key)) continue;
        seen.add(key);
        checks.push(commandCheck(server, plan.name, settings.command));
      }
    }
  }
  return checks;
}
