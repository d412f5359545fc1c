/**
 * A `provider: mock` Model's script (`spec.options`) is checked against the format the mock
 * provider uses when the agent starts (mock-script-format.ts), so `goondan validate` reports what
 * `goondan run` would otherwise refuse with E_MODEL_CONFIG — each problem at its file:line.
 */
import { isJsonObject } from '../types/json.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import { MOCK_SCRIPT_HINT, mockScriptProblems } from './mock-script-format.ts';
import type { ProblemSink } from './problem-sink.ts';

export function checkMockModel(doc: NamedDocument, sink: ProblemSink): void {
  const spec = specOf(doc);
  if (!isJsonObject(spec) || spec.provider !== 'mock' || spec.options === undefined) return;
  for (const problem of mockScriptProblems(spec.options)) {
    sink.at(doc, ['spec', 'options', ...problem.path], 'E_CONFIG_MOCK_SCRIPT', `Model "${doc.name}" (provider mock): ${problem.message}`, { suggestion: MOCK_SCRIPT_HINT });
  }
}
