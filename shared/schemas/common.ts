/**
 * Definitions shared by every Kind's schema (SPEC.md §1.1): metadata, ValueSource, free-form objects.
 * Registered with ajv under `$id: goondan:common`; the publisher inlines them into one file.
 */
import type { JsonObject } from '../types/json.ts';

export const COMMON_SCHEMA_ID = 'goondan:common';

/** `$ref` to one of these definitions (works both in ajv and, rewritten, in the published file). */
export function commonRef(name: string): JsonObject {
  return { $ref: `${COMMON_SCHEMA_ID}#/definitions/${name}` };
}

export const commonSchema: JsonObject = {
  $id: COMMON_SCHEMA_ID,
  definitions: {
    stringMap: {
      type: 'object',
      description: 'A map of string keys to string values.',
      additionalProperties: { type: 'string' },
    },
    freeObject: {
      type: 'object',
      description: 'A free-form object; its keys are not checked by goondan.',
    },
    metadata: {
      type: 'object',
      description: 'Identity of the resource.',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: {
          type: 'string',
          description:
            'Resource name: lowercase letters, digits and "-", starting with a letter, at most 63 characters. Unique per Kind within a package.',
          pattern: '^[a-z][a-z0-9-]{0,62}$',
        },
        labels: {
          type: 'object',
          description: 'String labels (documentation only; selectors are not supported).',
          additionalProperties: { type: 'string' },
        },
        annotations: {
          type: 'object',
          description: 'String annotations; they never change behaviour.',
          additionalProperties: { type: 'string' },
        },
      },
    },
    packageMetadata: {
      type: 'object',
      description: 'Identity of the package.',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: {
          type: 'string',
          description: 'Package name: a resource name or an npm-style scoped name such as "@scope/name".',
          pattern: '^(@[a-z0-9][a-z0-9-]*/)?[a-z][a-z0-9-]*$',
        },
        labels: { $ref: '#/definitions/stringMap', description: 'String labels (documentation only).' },
        annotations: { $ref: '#/definitions/stringMap', description: 'String annotations; they never change behaviour.' },
      },
    },
    valueSource: {
      type: 'object',
      description:
        'A value given inline ({value}) or read from the environment ({valueFrom: {env}}) or a secret ({valueFrom: {secretRef}}). Exactly one of value / valueFrom.',
      additionalProperties: false,
      properties: {
        value: { type: 'string', description: 'The value itself. Avoid inline secrets; prefer valueFrom.' },
        valueFrom: {
          type: 'object',
          description: 'Where to read the value from. Exactly one of env / secretRef.',
          additionalProperties: false,
          properties: {
            env: { type: 'string', minLength: 1, description: 'Name of the environment variable that holds the value.' },
            secretRef: {
              type: 'object',
              description: 'A secret; read from the environment variable GOONDAN_SECRET_<NAME>_<KEY> (upper-cased, "-" becomes "_").',
              additionalProperties: false,
              required: ['ref', 'key'],
              properties: {
                ref: { type: 'string', description: 'The secret, as "Secret/<name>".', pattern: '^Secret/[^/]+$' },
                key: { type: 'string', minLength: 1, description: 'Key inside the secret.' },
              },
            },
          },
        },
      },
    },
    sandbox: {
      type: 'object',
      description:
        'OS isolation of tool subprocesses (bash commands, stdio MCP servers): bubblewrap with new mount, PID, IPC, UTS and network namespaces; the system read-only, the instance workspace read-write, nothing of the state root, the bundle or $HOME. A narrower level (swarm → agent → tool ref config.sandbox) overrides field by field.',
      additionalProperties: false,
      properties: {
        mode: {
          enum: ['bwrap', 'none', 'required'],
          description:
            'bwrap (default): sandbox when bubblewrap works here, else run unsandboxed with a warning; required: never run unsandboxed (the swarm does not start without bwrap); none: no sandbox.',
        },
        network: { type: 'boolean', description: 'Give sandboxed processes the network (default false: only a private loopback).' },
        limits: {
          type: 'object',
          description: 'Per-process limits of everything a call starts (prlimit); 0 = no limit.',
          additionalProperties: false,
          properties: {
            cpuSeconds: { type: 'integer', minimum: 0, description: 'CPU seconds per process (RLIMIT_CPU; default 300).' },
            memoryMb: { type: 'integer', minimum: 0, description: 'Address space per process in MiB (RLIMIT_AS; default 4096).' },
            processes: {
              type: 'integer',
              minimum: 0,
              description: 'Processes and threads per sandbox (RLIMIT_NPROC; default 512). Enforced inside bwrap when the daemon is not root; the kernel exempts root.',
            },
            fileSizeMb: { type: 'integer', minimum: 0, description: 'Largest file a process may write, in MiB (RLIMIT_FSIZE; default 1024).' },
          },
        },
        readOnlyPaths: {
          type: 'array',
          description: 'Extra absolute host paths visible read-only inside the sandbox (a toolchain, an MCP server\'s code).',
          items: { type: 'string', pattern: '^/' },
        },
      },
    },
    toolPolicy: {
      type: 'object',
      description:
        'Tool permission policy: every rule matching a call is collected and the most restrictive action wins (deny > ask > allow); with no match, read-only tools are allowed and everything else gets `default`.',
      additionalProperties: false,
      properties: {
        default: { enum: ['allow', 'ask', 'deny'], description: 'Action for a tool no rule matches and that is not read-only (default ask).' },
        askTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 86400, description: 'An unanswered approval is denied after this many seconds (default 300).' },
        rules: {
          type: 'array',
          description: 'Rules; all that match a call are considered.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['tool', 'action'],
            properties: {
              tool: { type: 'string', minLength: 1, description: 'Tool name pattern, e.g. "bash__exec" or "file-system__*" (* matches anything).' },
              args: {
                type: 'object',
                description:
                  'Argument patterns, all of which must match. Path-like arguments (path, cwd, file…) are normalised and matched as globs ("**/*.ts"); a command line (command, cmd) is parsed and each command it would run is matched ("git *": deny/ask match any command, allow needs every command allowed; see the README); others match with * as "anything".',
                additionalProperties: { type: 'string' },
              },
              action: { enum: ['allow', 'ask', 'deny'], description: 'What to do with a matching call.' },
              reason: { type: 'string', description: 'Shown to the model (deny) or to the approver (ask).' },
            },
          },
        },
      },
    },
  },
};
