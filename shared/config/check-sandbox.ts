/**
 * `sandbox` blocks inside free-form tool config (issue 9): a tool ref's `config.sandbox` and a
 * Tool's own `spec.config.sandbox` are checked against the same schema as `policy.sandbox`, so a
 * misspelt `netwrok: true` fails the load instead of silently leaving the network off.
 */
import { isJsonObject, type JsonValue } from '../types/json.ts';
import { sandboxSpecValidator } from '../schemas/validators.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import { reportSchemaErrors } from './check-schema.ts';
import type { PathSegment } from './json-path.ts';
import type { ProblemSink } from './problem-sink.ts';

export function checkSandboxOverrides(doc: NamedDocument, sink: ProblemSink): void {
  const spec = specOf(doc);
  if (!spec) return;
  if (doc.kind === 'Tool' && isJsonObject(spec.config)) check(doc, spec.config.sandbox, ['spec', 'config', 'sandbox'], sink);
  if (doc.kind !== 'Agent' || !Array.isArray(spec.tools)) return;
  spec.tools.forEach((item, i) => {
    if (isJsonObject(item) && isJsonObject(item.config)) check(doc, item.config.sandbox, ['spec', 'tools', i, 'config', 'sandbox'], sink);
  });
}

function check(doc: NamedDocument, value: JsonValue | undefined, at: PathSegment[], sink: ProblemSink): void {
  if (value === undefined) return;
  const validate = sandboxSpecValidator();
  if (!validate(value)) reportSchemaErrors(doc, validate.errors ?? [], at, sink);
}
