/** Tool: handlers an agent can call, exposed to the LLM as `<tool>__<export>` (tool spec §4, §6). */
import { commonRef } from './common.ts';
import { resourceSchema } from './resource-envelope.ts';
import { toolExportDeclarations } from './tool-export-declarations.ts';

export const toolSchema = resourceSchema('Tool', 'A module of tool handlers; each export is one LLM-callable function.', {
  type: 'object',
  description: 'Entry module and the exported functions.',
  additionalProperties: false,
  required: ['exports'],
  properties: {
    entry: {
      type: 'string',
      minLength: 1,
      description:
        'Handler module, relative to the bundle root (no "../", no absolute path). It exports `handlers` (and optionally `evaluatePolicy`). Always run with Bun. Not needed when every export declares `http`.',
    },
    maxResultBytes: {
      type: 'integer',
      minimum: 1024,
      description: "A result of this tool larger than this many bytes is cut in the conversation and saved whole in the workspace (default: the agent's maxToolResultBytes, else 65536).",
    },
    errorMessageLimit: {
      type: 'integer',
      minimum: 1,
      description: 'Error messages returned to the model are cut to this many characters (default 1000).',
    },
    exports: {
      type: 'array',
      description: 'The functions the model sees, as "<tool>__<export>". At least one; names unique.',
      items: {
        type: 'object',
        description: 'One LLM-callable function.',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', description: 'Export name: [a-z0-9_-]+ without "__".' },
          description: { type: 'string', minLength: 1, description: 'What the function does; shown to the model. Optional, but models choose tools by it.' },
          parameters: {
            type: 'object',
            description: 'JSON Schema of the arguments; must be `type: object`. Its own keywords are free. Optional: a function without arguments gets { type: object, properties: {} }.',
            required: ['type'],
            properties: { type: { const: 'object', description: 'Always "object".' } },
          },
          readOnly: { type: 'boolean', description: 'The function changes nothing; the default permission policy allows it without asking.' },
          idempotent: {
            type: 'boolean',
            description:
              'Running the function twice with the same arguments has the effect of running it once. A call interrupted by a crash is run again on resume only when this is true; otherwise the model receives E_TOOL_INTERRUPTED (default false).',
          },
          readOnlyUnlessConfig: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            description:
              'Config keys that widen what the function can reach: when one of them is set to a non-empty value (Tool spec.config or the agent\'s tools[].config), the function is not read-only for that agent.',
          },
          ...toolExportDeclarations(commonRef('valueSource')),
        },
      },
    },
    config: {
      type: 'object',
      description:
        'Handler settings, handed to handlers as ctx.config (agents may override keys per tool) and readable in templates as {{config.<key>}}. The key timeoutMs is the engine\'s time limit per call (for every export; agents may set their own) and is not passed to handlers.',
    },
  },
});
