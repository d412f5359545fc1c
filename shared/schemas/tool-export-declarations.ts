/**
 * The declarations of a Tool export beyond name, description and parameters (issue 17, tool spec
 * §6.1 / seed 004): HTTP requests, display metadata, result schemas, per-call limits. One
 * definition for the resource schema (header values may be ValueSources) and the plan schema
 * (headers resolved to strings).
 */
import type { JsonObject } from '../types/json.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const positiveMs = (description: string) => ({ type: 'integer', minimum: 1, description });

export function toolExportDeclarations(headerValue: JsonObject): Record<string, JsonObject> {
  return {
    http: {
      type: 'object',
      description:
        'Answer calls with this HTTP request instead of a handler. url, headers and body are templates: {{args.<name>}} (percent-encoded in the url) and {{config.<key>}} (inserted as written). The private-address rules and config.allow of http-fetch apply. A JSON response becomes the result; status >= 400 is E_TOOL_HTTP.',
      additionalProperties: false,
      required: ['method', 'url'],
      properties: {
        method: { enum: [...HTTP_METHODS], description: 'HTTP method.' },
        url: { type: 'string', minLength: 1, description: 'http(s) URL template, e.g. "{{config.baseUrl}}/issues/{{args.id}}".' },
        headers: {
          type: 'object',
          description: 'Request headers: templates, or ValueSources for credentials ({valueFrom: {env: API_TOKEN}}).',
          additionalProperties: { anyOf: [{ type: 'string' }, headerValue] },
        },
        body: {
          description:
            'Request body: a string template (sent as text), or JSON whose string values are templates (sent as application/json; a value that is exactly "{{args.x}}" keeps x\'s type, and is left out when x is absent).',
        },
        timeoutMs: positiveMs('The request\'s own time limit in milliseconds (default 30000).'),
      },
    },
    displayName: { type: 'string', minLength: 1, description: 'Name shown to people instead of "<tool>__<export>" (approval prompt, logs, tool-search).' },
    icon: { type: 'string', minLength: 1, maxLength: 32, description: 'An emoji or a short name shown beside displayName.' },
    summary: {
      type: 'string',
      minLength: 1,
      description: 'One-line template of what a call does, e.g. "Run {{args.command}}": shown in the approval prompt, GET /v1/approvals, the tool.called event and goondan logs.',
    },
    returns: { type: 'object', description: 'JSON Schema of the result. A result that does not match is E_TOOL_RESULT_INVALID with GOONDAN_STRICT_RESULTS=1, else a logged warning.' },
    maxCallsPerTurn: { type: 'integer', minimum: 1, description: 'At most this many calls per turn, counted in the order the model made them; later calls get E_TOOL_CALL_LIMIT and never run.' },
    timeoutMs: positiveMs('The engine\'s time limit for one call in milliseconds (default 300000); an agent\'s tools[].config.timeoutMs wins.'),
    timeoutFromArg: {
      type: 'string',
      minLength: 1,
      description: 'The argument that holds the call\'s own time limit in milliseconds (e.g. timeoutMs): the engine waits at least that long (plus a grace period) before aborting the call.',
    },
  };
}
