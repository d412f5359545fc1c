/**
 * The `config` of the mcp extension (Extension `spec.config` with the agent's `extensions[].config`
 * shallow-merged over it), checked with ajv and resolved into one `McpServerSettings` per server.
 * Problems name the server and the field (`servers.github.args[0]: must be string`) so the
 * E_EXT_INIT the engine reports says exactly what to fix.
 */
import { isAbsolute } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonObject } from '../../../../shared/types/json.ts';
import type { SandboxMode } from '../../../../shared/types/sandbox.ts';
import { McpExtensionError } from './mcp-error.ts';
import { sanitizeNamePart } from './tool-naming.ts';

/** A plain string, or a ValueSource without secretRef (SPEC.md §1.2): `{value}` / `{valueFrom:{env}}`. */
export type ConfigString = string | { value: string } | { valueFrom: { env: string } };

interface ServerCommonConfig {
  /** Only these MCP tool names (`*` and `?` wildcards); default all. */
  include?: string[];
  /** Never these MCP tool names (wins over include). */
  exclude?: string[];
  /** Per-call timeout of this server; default: the extension's `timeoutMs`. */
  timeoutMs?: number;
  /** Take the server's `readOnlyHint` annotations as the catalog's `readOnly` flag (default false: hints are untrusted). */
  trustAnnotations?: boolean;
}
/** A stdio server's own sandbox settings over the agent's; `false` = run it unsandboxed. */
export interface ServerSandboxConfig {
  mode?: SandboxMode;
  network?: boolean;
  readOnlyPaths?: string[];
}
export interface StdioServerConfig extends ServerCommonConfig {
  command: string;
  args?: string[];
  env?: Record<string, ConfigString>;
  cwd?: string;
  sandbox?: false | ServerSandboxConfig;
}
export interface HttpServerConfig extends ServerCommonConfig {
  url: string;
  headers?: Record<string, ConfigString>;
}

export type McpTransportSettings =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string; sandbox: ServerSandboxConfig }
  | { kind: 'http'; url: URL; headers: Record<string, string> };

export interface McpServerSettings {
  /** The key under `servers` (ToolSource.mcp.serverName). */
  name: string;
  /** `name` made fit for the `{server}__{tool}` rule (tool spec §5.2). */
  toolPrefix: string;
  transport: McpTransportSettings;
  include: string[];
  exclude: string[];
  timeoutMs: number;
  trustAnnotations: boolean;
}

export interface McpSettings {
  servers: McpServerSettings[];
  timeoutMs: number;
  connectTimeoutMs: number;
  /** Server names that had to be changed to become a tool-name prefix (the caller warns). */
  renamedServers: Array<{ server: string; toolPrefix: string }>;
}

export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

const configString = {
  anyOf: [
    { type: 'string' },
    { type: 'object', additionalProperties: false, required: ['value'], properties: { value: { type: 'string' } } },
    {
      type: 'object',
      additionalProperties: false,
      required: ['valueFrom'],
      properties: {
        valueFrom: { type: 'object', additionalProperties: false, required: ['env'], properties: { env: { type: 'string', minLength: 1 } } },
      },
    },
  ],
};
const nameList = { type: 'array', items: { type: 'string', minLength: 1 } };
const common = {
  include: nameList,
  exclude: nameList,
  timeoutMs: { type: 'integer', minimum: 1 },
  trustAnnotations: { type: 'boolean' },
};

const ajv = new Ajv({ allErrors: true, strict: false });
let validators: { top: ValidateFunction; stdio: ValidateFunction<StdioServerConfig>; http: ValidateFunction<HttpServerConfig> } | undefined;

// Compiled lazily once: register() is the only caller and runs once per agent process.
function compiled(): NonNullable<typeof validators> {
  validators ??= {
    top: ajv.compile({
      type: 'object',
      // A misspelt setting must fail loudly rather than be ignored.
      additionalProperties: false,
      properties: {
        servers: { type: 'object', additionalProperties: { type: 'object' } },
        timeoutMs: { type: 'integer', minimum: 1 },
        connectTimeoutMs: { type: 'integer', minimum: 1 },
      },
    }),
    stdio: ajv.compile<StdioServerConfig>({
      type: 'object',
      additionalProperties: false,
      required: ['command'],
      properties: {
        command: { type: 'string', minLength: 1 },
        args: { type: 'array', items: { type: 'string' } },
        env: { type: 'object', additionalProperties: configString },
        cwd: { type: 'string', minLength: 1 },
        sandbox: {
          anyOf: [
            { const: false },
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                mode: { enum: ['bwrap', 'none', 'required'] },
                network: { type: 'boolean' },
                readOnlyPaths: { type: 'array', items: { type: 'string', pattern: '^/' } },
              },
            },
          ],
        },
        ...common,
      },
    }),
    http: ajv.compile<HttpServerConfig>({
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', pattern: '^https?://' },
        headers: { type: 'object', additionalProperties: configString },
        ...common,
      },
    }),
  };
  return validators;
}

const MAX_LISTED_ISSUES = 5;

function configError(problems: string[]): McpExtensionError {
  const listed = problems.slice(0, MAX_LISTED_ISSUES);
  if (problems.length > MAX_LISTED_ISSUES) listed.push(`… and ${problems.length - MAX_LISTED_ISSUES} more`);
  return new McpExtensionError('E_EXT_CONFIG', `invalid mcp config: ${listed.join('; ')}`, {
    suggestion:
      'Each entry of servers is either { command, args?, env?, cwd?, sandbox? } (stdio) or { url, headers? } (streamable HTTP), plus optional include, exclude, timeoutMs, trustAnnotations.',
  });
}

function describeIssues(errors: ErrorObject[] | null | undefined, root: string): string[] {
  return (errors ?? [])
    // anyOf reports every branch; its summary line alone is clearer.
    .filter((error, _index, all) => !all.some((other) => other !== error && other.keyword === 'anyOf' && within(error.instancePath, other.instancePath)))
    .map((error) => {
      const where = root + error.instancePath.replace(/\/([^/]*)/g, (_match, key: string) => (/^\d+$/.test(key) ? `[${key}]` : `.${key.replace(/~1/g, '/').replace(/~0/g, '~')}`));
      if (error.keyword === 'additionalProperties') return `${where}: unknown field "${String(error.params.additionalProperty)}"`;
      if (error.keyword === 'required') return `${where}: missing required field "${String(error.params.missingProperty)}"`;
      if (error.keyword === 'pattern' && where.endsWith('.url')) return `${where}: must be an http:// or https:// URL`;
      if (error.keyword === 'anyOf' && where.endsWith('.sandbox')) return `${where}: must be false or { mode?, network?, readOnlyPaths? }`;
      if (error.keyword === 'anyOf') return `${where}: must be a string, { value } or { valueFrom: { env } }`;
      return `${where}: ${error.message ?? error.keyword}`;
    });
}

/** Reads and resolves the config; throws McpExtensionError E_EXT_CONFIG listing every problem found. */
export function readMcpConfig(config: JsonObject | undefined, env: Record<string, string | undefined> = process.env): McpSettings {
  const { top, stdio, http } = compiled();
  const raw = config ?? {};
  if (!top(raw)) throw configError(describeIssues(top.errors, 'config'));
  const timeoutMs = typeof raw.timeoutMs === 'number' ? raw.timeoutMs : DEFAULT_CALL_TIMEOUT_MS;
  const connectTimeoutMs = typeof raw.connectTimeoutMs === 'number' ? raw.connectTimeoutMs : DEFAULT_CONNECT_TIMEOUT_MS;
  const serversRaw = isObject(raw.servers) ? raw.servers : {};

  const problems: string[] = [];
  const servers: McpServerSettings[] = [];
  const renamedServers: McpSettings['renamedServers'] = [];
  const prefixes = new Map<string, string>();
  for (const [name, value] of Object.entries(serversRaw)) {
    const at = `servers.${name}`;
    if (!isObject(value)) {
      problems.push(`${at}: must be an object`);
      continue;
    }
    const hasCommand = 'command' in value;
    const hasUrl = 'url' in value;
    if (hasCommand === hasUrl) {
      problems.push(`${at}: set exactly one of "command" (a stdio server) or "url" (a streamable HTTP server)`);
      continue;
    }
    const toolPrefix = sanitizeNamePart(name, 'server');
    const clash = prefixes.get(toolPrefix);
    if (clash !== undefined) {
      problems.push(`${at}: its tool prefix "${toolPrefix}" is the same as that of servers.${clash}; rename one of them`);
      continue;
    }
    prefixes.set(toolPrefix, name);
    if (toolPrefix !== name) renamedServers.push({ server: name, toolPrefix });

    let transport: McpTransportSettings | undefined;
    let settings: ServerCommonConfig;
    if (hasCommand) {
      if (!stdio(value)) {
        problems.push(...describeIssues(stdio.errors, at));
        continue;
      }
      settings = value;
      if (value.cwd !== undefined && !isAbsolute(value.cwd)) {
        problems.push(`${at}.cwd: must be an absolute path (got "${value.cwd}")`);
        continue;
      }
      const resolved = resolveStrings(value.env ?? {}, `${at}.env`, env, problems);
      const sandbox = value.sandbox === false ? { mode: 'none' as const } : (value.sandbox ?? {});
      transport = { kind: 'stdio', command: value.command, args: value.args ?? [], env: resolved, sandbox, ...(value.cwd !== undefined ? { cwd: value.cwd } : {}) };
    } else {
      if (!http(value)) {
        problems.push(...describeIssues(http.errors, at));
        continue;
      }
      settings = value;
      let url: URL;
      try {
        url = new URL(value.url);
      } catch {
        problems.push(`${at}.url: "${value.url}" is not a valid URL`);
        continue;
      }
      transport = { kind: 'http', url, headers: resolveStrings(value.headers ?? {}, `${at}.headers`, env, problems) };
    }
    servers.push({
      name,
      toolPrefix,
      transport,
      include: settings.include ?? [],
      exclude: settings.exclude ?? [],
      timeoutMs: settings.timeoutMs ?? timeoutMs,
      trustAnnotations: settings.trustAnnotations === true,
    });
  }
  if (problems.length > 0) throw configError(problems);
  return { servers, timeoutMs, connectTimeoutMs, renamedServers };
}

function resolveStrings(values: Record<string, ConfigString>, at: string, env: Record<string, string | undefined>, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'string') out[key] = value;
    else if ('value' in value) out[key] = value.value;
    else {
      const found = env[value.valueFrom.env];
      // SPEC.md §1.2: a missing variable is an error, never an empty string; the value is never logged.
      if (found === undefined) problems.push(`${at}.${key}: environment variable ${value.valueFrom.env} is not set`);
      else out[key] = found;
    }
  }
  return out;
}

function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
