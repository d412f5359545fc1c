/**
 * Agent rules: `prompt.system` and `prompt.systemRef` are exclusive (SPEC.md §1.2; likewise in the
 * upstream spelling `prompts`, and `prompt` / `prompts` themselves); the model must
 * support what the agent needs (tools → toolCalling); requiredTools should name catalog tools.
 */
import { isJsonObject } from '../types/json.ts';
import { agentPromptFields } from './agent-prompt.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import type { ProblemSink } from './problem-sink.ts';
import type { RefResolutions } from './check-refs.ts';

export function checkPromptConflict(doc: NamedDocument, sink: ProblemSink): void {
  const spec = specOf(doc);
  if (spec?.prompt !== undefined && spec.prompts !== undefined) {
    sink.at(doc, ['spec', 'prompts'], 'E_CONFIG_PROMPT_CONFLICT', 'prompt and prompts (the upstream spelling) are both set; keep one', {
      target: 'key',
      suggestion: 'move the prompt into one of them, e.g. prompt: { systemRef: ./prompts/agent.md }',
    });
    return;
  }
  const prompt = agentPromptFields(spec);
  if (prompt?.text !== undefined && prompt.systemRef !== undefined) {
    sink.at(doc, ['spec', prompt.field, 'systemRef'], 'E_CONFIG_PROMPT_CONFLICT', `${prompt.field}.${prompt.textKey} and ${prompt.field}.systemRef are both set; they are exclusive and never merged`, {
      target: 'key',
      suggestion: `keep one: the inline text (${prompt.textKey}) or the file (systemRef)`,
    });
  }
}

/** Checks that need resolved references. */
export function checkAgentNeeds(doc: NamedDocument, resolutions: RefResolutions, sink: ProblemSink): void {
  const spec = specOf(doc);
  if (!spec) return;
  const tools = Array.isArray(spec.tools) ? spec.tools : [];
  const model = resolutions.get(doc, ['spec', 'modelConfig', 'modelRef']);
  const capabilities = model ? specOf(model)?.capabilities : undefined;
  if (tools.length > 0 && isJsonObject(capabilities) && capabilities.toolCalling === false) {
    sink.at(doc, ['spec', 'modelConfig', 'modelRef'], 'E_CONFIG_MODEL_CAPABILITY', `agent "${doc.name}" has ${tools.length} tool(s) but Model "${model?.name}" declares capabilities.toolCalling: false`, {
      suggestion: 'use a model that can call tools, or remove the agent\'s tools',
    });
  }

  const required = spec.requiredTools;
  if (!Array.isArray(required) || resolutions.broken.has(doc)) return;
  const known = new Set<string>();
  tools.forEach((_, i) => {
    const tool = resolutions.get(doc, ['spec', 'tools', i]);
    const exports = tool ? specOf(tool)?.exports : undefined;
    if (!tool || !Array.isArray(exports)) return;
    for (const item of exports) if (isJsonObject(item) && typeof item.name === 'string') known.add(`${tool.name}__${item.name}`);
  });
  required.forEach((name, i) => {
    if (typeof name !== 'string' || known.has(name)) return;
    sink.at(doc, ['spec', 'requiredTools', i], 'E_CONFIG_REQUIRED_TOOL_UNKNOWN', `requiredTools names "${name}", which is not an export of this agent's tools`, {
      severity: 'warning',
      suggestion: known.size > 0 ? `the agent's tools: ${[...known].join(', ')} (extension tools are only known at run time)` : 'add the tool to spec.tools',
    });
  });
}
