/** `entry` and `prompt.systemRef` (or `prompts.systemRef`) files exist and stay inside their bundle root (SPEC.md §1.3). */
import { agentPromptFields } from './agent-prompt.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import { resolveBundlePath } from './bundle-path.ts';
import type { ProblemSink } from './problem-sink.ts';

const ENTRY_KINDS = new Set(['Tool', 'Extension', 'Connector']);

export function checkPaths(doc: NamedDocument, sink: ProblemSink): void {
  const spec = specOf(doc);
  if (!spec) return;
  if (ENTRY_KINDS.has(doc.kind) && typeof spec.entry === 'string' && spec.entry !== '') {
    const result = resolveBundlePath(doc.bundleRoot, spec.entry, 'entry');
    if (!result.ok && result.reason === 'escape') {
      sink.at(doc, ['spec', 'entry'], 'E_CONFIG_PATH_ESCAPE', `entry ${result.message}`, { suggestion: 'write the entry relative to the bundle root, e.g. ./tools/my-tool/index.ts' });
    } else if (!result.ok) {
      sink.at(doc, ['spec', 'entry'], 'E_CONFIG_ENTRY_NOT_FOUND', `entry ${result.message}`, {
        // The built-in package's modules arrive in later issues (issue 2): a warning there.
        severity: doc.builtin ? 'warning' : 'error',
        suggestion: 'create the module or fix the path (relative to the bundle root)',
      });
    }
  }
  const prompt = doc.kind === 'Agent' ? agentPromptFields(spec) : undefined;
  if (prompt?.systemRef !== undefined && prompt.systemRef !== '') {
    const result = resolveBundlePath(doc.bundleRoot, prompt.systemRef, 'file');
    if (!result.ok) {
      sink.at(
        doc,
        ['spec', prompt.field, 'systemRef'],
        result.reason === 'escape' ? 'E_CONFIG_PATH_ESCAPE' : 'E_CONFIG_SYSTEM_REF_NOT_FOUND',
        `systemRef ${result.message}`,
        { suggestion: result.reason === 'escape' ? 'keep prompt files inside the bundle, e.g. ./prompts/agent.md' : 'create the prompt file or fix the path (relative to the bundle root)' },
      );
    }
  }
}
