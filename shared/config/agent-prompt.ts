/**
 * Where an agent's system prompt is declared: `prompt {system | systemRef}` (SPEC.md §1.2), or
 * the spelling of upstream goondan v0.0.3 bundles, `prompts {systemPrompt | systemRef}`, which is
 * accepted so that their bundles load unchanged. One reader for the checks and the plan.
 */
export interface AgentPromptFields {
  /** The spec key that holds it. */
  field: 'prompt' | 'prompts';
  /** The key of the inline text within it. */
  textKey: 'system' | 'systemPrompt';
  text?: string;
  systemRef?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The prompt fields in use (`prompt` first when, wrongly, both are set). */
export function agentPromptFields(spec: unknown): AgentPromptFields | undefined {
  if (!isObject(spec)) return undefined;
  for (const [field, textKey] of [['prompt', 'system'], ['prompts', 'systemPrompt']] as const) {
    const value = spec[field];
    if (!isObject(value)) continue;
    const text = value[textKey];
    const systemRef = value.systemRef;
    return {
      field,
      textKey,
      ...(typeof text === 'string' ? { text } : {}),
      ...(typeof systemRef === 'string' ? { systemRef } : {}),
    };
  }
  return undefined;
}
