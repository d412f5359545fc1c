/**
 * deploy/cluster/compose.yaml as Docker Compose will read it (no docker needed): one NATS server
 * with JetStream and three goondan nodes of one cluster, each its own node id, host port and state
 * volume; and the variables and flags it and deploy/cluster/README.md use are ones goondan reads.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { runCommand } from '../../orchestrator/cli/commands/run.ts';
import { GOONDAN_BIN, REPO_ROOT } from '../e2e/daemon-harness.ts';

const COMPOSE_FILE = join(REPO_ROOT, 'deploy', 'cluster', 'compose.yaml');
const COMPOSE_DIR = dirname(COMPOSE_FILE);
const README = readFileSync(join(COMPOSE_DIR, 'README.md'), 'utf8');
const DOCKERFILE = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');

interface Service {
  name: string;
  image?: string;
  build?: string;
  command: string[];
  environment: Record<string, string>;
  ports: string[];
  volumes: string[];
  dependsOn: string[];
}

/** The compose file's services, with the shapes Compose allows narrowed to one each. */
function composeServices(): { services: Service[]; namedVolumes: string[] } {
  // Compose applies YAML merge keys (`<<: *anchor`); so must this parse.
  const doc: unknown = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true });
  const root = record(doc, 'compose.yaml');
  const services = Object.entries(record(root.services, 'services')).map(([name, raw]): Service => {
    const spec = record(raw, `services.${name}`);
    const environment = spec.environment === undefined ? {} : record(spec.environment, `services.${name}.environment`);
    const dependsOn = spec.depends_on === undefined ? [] : Array.isArray(spec.depends_on) ? strings(spec.depends_on, `services.${name}.depends_on`) : Object.keys(record(spec.depends_on, `services.${name}.depends_on`));
    return {
      name,
      ...(typeof spec.image === 'string' ? { image: spec.image } : {}),
      ...(typeof spec.build === 'string' ? { build: spec.build } : {}),
      command: spec.command === undefined ? [] : typeof spec.command === 'string' ? spec.command.split(/\s+/) : strings(spec.command, `services.${name}.command`),
      environment: Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, String(value)])),
      ports: spec.ports === undefined ? [] : strings(spec.ports, `services.${name}.ports`),
      volumes: spec.volumes === undefined ? [] : strings(spec.volumes, `services.${name}.volumes`),
      dependsOn,
    };
  });
  const namedVolumes = root.volumes === undefined ? [] : Object.keys(record(root.volumes, 'volumes'));
  return { services, namedVolumes };
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`compose.yaml: ${where} is not a mapping`);
  return Object.fromEntries(Object.entries(value));
}

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Error(`compose.yaml: ${where} is not a list of strings (use the short syntax)`);
  return value;
}

/** `SOURCE:TARGET[:MODE]` of a short-syntax volume. */
function mount(volume: string): { source: string; target: string } {
  const [source = '', target = ''] = volume.split(':');
  return { source, target };
}

/** `name` appears in goondan run's usage as a whole word (not `--cluster` inside `--cluster-creds`). */
function inRunUsage(name: string): boolean {
  return new RegExp(`(?<![\\w-])${name}(?![\\w-])`).test(runCommand.usage);
}

const { services, namedVolumes } = composeServices();
const nodes = services.filter((service) => service.environment.GOONDAN_CLUSTER_URL !== undefined);
const nats = services.find((service) => service.image?.startsWith('nats:'));

describe('deploy/cluster/compose.yaml: the NATS server', () => {
  test('is the nats image started with JetStream and a store directory on a named volume', () => {
    if (!nats) throw new Error(`no service with a nats: image among ${services.map((s) => s.name).join(', ')}`);
    expect(nats.command).toContain('-js');
    const storeDir = nats.command[nats.command.indexOf('-sd') + 1];
    expect(storeDir).toBeDefined();
    const storeVolume = nats.volumes.map(mount).find((m) => m.target === storeDir);
    expect(namedVolumes).toContain(storeVolume?.source ?? `(no volume at ${storeDir})`);
  });
});

describe('deploy/cluster/compose.yaml: the goondan nodes', () => {
  test('three nodes, built from the repository Dockerfile, each depending on the nats service', () => {
    expect(nodes.map((node) => node.name)).toHaveLength(3);
    for (const node of nodes) {
      expect({ node: node.name, context: node.build && resolve(COMPOSE_DIR, node.build) }).toEqual({ node: node.name, context: REPO_ROOT });
      expect({ node: node.name, dependsOn: node.dependsOn }).toEqual({ node: node.name, dependsOn: [nats?.name ?? 'nats'] });
    }
    expect(existsSync(join(REPO_ROOT, 'Dockerfile'))).toBe(true);
  });

  test('every node points at the nats service on the client port', () => {
    for (const node of nodes) expect({ node: node.name, url: node.environment.GOONDAN_CLUSTER_URL }).toEqual({ node: node.name, url: `nats://${nats?.name}:4222` });
  });

  test('distinct node ids, host ports and state volumes', () => {
    const ids = nodes.map((node) => node.environment.GOONDAN_NODE_ID);
    const hostPorts = nodes.map((node) => node.ports.map((port) => port.split(':')[0]));
    const stateVolumes = nodes.map((node) => node.volumes.map(mount).find((m) => m.target === '/var/lib/goondan')?.source);
    expect(ids.every((id) => id !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    expect(hostPorts.every((ports) => ports.length === 1)).toBe(true);
    expect(new Set(hostPorts.flat()).size).toBe(3);
    // Each node forwards a host port to the image's API port (GOONDAN_PORT in the Dockerfile).
    const apiPort = DOCKERFILE.match(/^(?:ENV\s+|\s+)GOONDAN_PORT=(\d+)/m)?.[1];
    expect(apiPort).toBeDefined();
    for (const node of nodes) expect(node.ports[0]?.split(':')[1]).toBe(apiPort);
    expect(stateVolumes.every((volume) => volume !== undefined && namedVolumes.includes(volume))).toBe(true);
    expect(new Set(stateVolumes).size).toBe(3);
  });

  test('every node runs the same bundle, mounted where the image runs it, and it is valid', () => {
    const cmd: unknown = JSON.parse(DOCKERFILE.match(/^CMD (\[.*\])$/m)?.[1] ?? '[]');
    if (!Array.isArray(cmd)) throw new Error('the Dockerfile CMD is not exec form');
    const bundleTarget = String(cmd[1]);
    const sources = new Set(nodes.map((node) => node.volumes.map(mount).find((m) => m.target === bundleTarget)?.source));
    expect(sources.size).toBe(1);
    const [source] = [...sources];
    if (source === undefined) throw new Error(`no node mounts a bundle at ${bundleTarget} (the Dockerfile's CMD runs it)`);
    const validate = Bun.spawnSync([GOONDAN_BIN, 'validate', resolve(COMPOSE_DIR, source)], { stdout: 'pipe', stderr: 'pipe' });
    expect({ code: validate.exitCode, stderr: validate.stderr.toString() }).toEqual({ code: 0, stderr: '' });
  });

  test('the API token must be given (the image listens on 0.0.0.0), and the variables are ones goondan run reads', () => {
    for (const node of nodes) {
      expect(node.environment.GOONDAN_API_TOKEN).toMatch(/^\$\{GOONDAN_API_TOKEN:\?.+\}$/);
      for (const name of Object.keys(node.environment)) expect({ name, documented: inRunUsage(name) }).toEqual({ name, documented: true });
    }
  });
});

describe('deploy/cluster/README.md', () => {
  test('names only flags and variables that goondan run has', () => {
    const flags = new Set([...README.matchAll(/`(--cluster[a-z-]*|--node-id)\b/g)].map((m) => m[1] ?? ''));
    const variables = new Set([...README.matchAll(/\b(GOONDAN_[A-Z_]+)\b/g)].map((m) => m[1] ?? ''));
    expect(flags.size).toBeGreaterThanOrEqual(4);
    for (const name of [...flags, ...variables]) expect({ name, documented: inRunUsage(name) }).toEqual({ name, documented: true });
  });
});
