/**
 * Request bodies are untrusted: parse JSON defensively and validate with ajv (compiled once);
 * every failure names the field and becomes a 400, never an exception.
 */
import type { ErrorObject } from 'ajv';
import { compiledValidator, type Validator } from '../../shared/validation/compiled-validator.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import { errorResponse } from './http-errors.ts';
import { readBoundedBody } from '../../shared/http/bounded-body.ts';

const options = { allErrors: true, strict: false } as const;

export const MAX_BODY_BYTES = 1_000_000;

export interface SubmitEventBody {
  input: string;
  agent?: string;
  instanceKey?: string;
  wait?: boolean;
  timeoutMs?: number;
  traceId?: string;
  metadata?: JsonObject;
  idempotencyKey?: string;
  /** Answer as text/event-stream: the trace's runtime events, then the reply (needs wait). */
  stream?: boolean;
}

export const validateSubmitEventBody = compiledValidator<SubmitEventBody>({
  options,
  schema: {
    type: 'object',
    required: ['input'],
    additionalProperties: false,
    properties: {
      input: { type: 'string', minLength: 1 },
      agent: { type: 'string', minLength: 1 },
      instanceKey: { type: 'string', minLength: 1, maxLength: 256 },
      wait: { type: 'boolean' },
      timeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000 },
      traceId: { type: 'string', pattern: '^[0-9a-f]{32}$' },
      metadata: { type: 'object' },
      idempotencyKey: { type: 'string', minLength: 1, maxLength: 256 },
      stream: { type: 'boolean' },
    },
  },
});

export interface RestartBody {
  agent?: string;
  instanceKey?: string;
  fresh?: boolean;
}

export const validateRestartBody = compiledValidator<RestartBody>({
  options,
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      agent: { type: 'string', minLength: 1 },
      instanceKey: { type: 'string', minLength: 1, maxLength: 256 },
      fresh: { type: 'boolean' },
    },
  },
});

export function problemsOf(errors: ErrorObject[] | null | undefined): JsonObject[] {
  return (errors ?? []).map((e) => {
    const missing = e.keyword === 'required' && typeof e.params.missingProperty === 'string' ? `/${e.params.missingProperty}` : '';
    const extra = e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string' ? `/${e.params.additionalProperty}` : '';
    const path = `${e.instancePath}${missing}${extra}` || '/';
    return { path, message: problemMessage(e) };
  });
}

/** ajv's words, except where they leave out what to send: an enum names its allowed values. */
function problemMessage(error: ErrorObject): string {
  const allowed: unknown = error.params.allowedValues;
  if (error.keyword === 'enum' && Array.isArray(allowed)) return `must be one of: ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  return error.message ?? 'is invalid';
}

/** What a route's body looks like, for the errors that say how to fix it. */
export interface BodyShape {
  /** A valid body of this route, shown when the body is not JSON. */
  example: string;
  /** Every field is optional: an empty body means `{}`. */
  emptyIsObject?: boolean;
}

const SUBMIT_SHAPE: BodyShape = { example: '{"input": "hello"}' };
// Invalid UTF-8 is refused, not turned into U+FFFD: the agent would get other text than was sent.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Parses and validates a JSON body, or returns the 400 response to send (and calls `onReject`). */
export async function readJsonBody<T>(
  request: Request,
  validate: Validator<T>,
  onReject: () => void = () => {},
  shape: BodyShape = SUBMIT_SHAPE,
): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const result = await parseJsonBody(request, validate, shape);
  if (!result.ok) onReject();
  return result;
}

async function parseJsonBody<T>(request: Request, validate: Validator<T>, shape: BodyShape): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const body = await readBoundedBody(request, MAX_BODY_BYTES);
  if (!body.ok && body.reason === 'too-large') return { ok: false, response: errorResponse(413, 'E_HTTP_BODY_TOO_LARGE', `body is larger than ${MAX_BODY_BYTES} bytes`) };
  // The client went away mid-upload: nothing to answer, nothing worth an error log.
  if (!body.ok) return { ok: false, response: errorResponse(400, 'E_HTTP_BODY_ABORTED', 'the request body could not be read (the client aborted the upload)') };
  let text: string;
  try {
    text = UTF8.decode(body.bytes);
  } catch {
    return { ok: false, response: errorResponse(400, 'E_HTTP_BAD_JSON', 'body is not valid UTF-8', { suggestion: `send the JSON as UTF-8, e.g. ${shape.example}` }) };
  }
  if (shape.emptyIsObject === true && text.trim() === '') text = '{}';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, response: errorResponse(400, 'E_HTTP_BAD_JSON', `body is not valid JSON: ${reason}`, { suggestion: `send a JSON object, e.g. ${shape.example}` }) };
  }
  if (!validate(value)) {
    const problems = problemsOf(validate.errors);
    const first = problems[0];
    const message = first ? `${first.path}: ${first.message}` : 'body does not match the schema';
    return { ok: false, response: errorResponse(400, 'E_HTTP_BAD_BODY', message, { details: { problems }, suggestion: 'fix the fields named in details.problems' }) };
  }
  return { ok: true, value };
}
