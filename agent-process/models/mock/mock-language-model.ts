/**
 * The `mock` provider: a deterministic scripted model implemented as a real AI SDK
 * `LanguageModelV3`, so it runs through exactly the same generateText path as the real providers.
 * The script (Model `spec.options`) is described in docs/mock-model.md.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { JsonObject } from '../../../shared/types/json.ts';
import { readPrompt, type PromptReading } from './mock-prompt.ts';
import { compileMockScript, type MockAction, type MockScript } from './mock-script.ts';
import { renderJson, renderTemplate, type TemplateScope } from './mock-template.ts';

export interface MockModelOptions {
  /** Model resource name (for error messages). */
  modelName: string;
  /** `Model.spec.model` (free text). */
  modelId: string;
  /** `{{agent}}` in templates. */
  agentName: string;
  options: JsonObject;
}

export function createMockLanguageModel(config: MockModelOptions): LanguageModelV3 {
  const script = compileMockScript(config.modelName, config.options);
  const generate = async (call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
    if (script.latencyMs > 0) await sleep(script.latencyMs, call.abortSignal);
    return respond(script, config, readPrompt(call.prompt));
  };
  return {
    specificationVersion: 'v3',
    provider: 'goondan.mock',
    modelId: config.modelId,
    supportedUrls: {},
    doGenerate: generate,
    doStream: async (call): Promise<LanguageModelV3StreamResult> => ({ stream: toStream(await generate(call)) }),
  };
}

function respond(script: MockScript, config: MockModelOptions, reading: PromptReading): LanguageModelV3GenerateResult {
  let match: string[] = [];
  let actions = script.fallback;
  for (const rule of script.rules) {
    const found = rule.test(reading.input);
    if (found) {
      match = found;
      actions = rule.actions;
      break;
    }
  }
  const action: MockAction = actions[Math.min(reading.depth, actions.length - 1)] ?? { kind: 'summary' };
  const first = reading.results[0];
  const scope: TemplateScope = {
    input: reading.input,
    agent: config.agentName,
    system: reading.system,
    match,
    result: reading.results.map((result) => result.text).join('\n'),
    firstResult: first?.value,
    error: first?.error ?? '',
  };

  const content: LanguageModelV3Content[] = [];
  let outputChars = 0;
  if (action.kind === 'toolCalls') {
    action.calls.forEach((call, index) => {
      const input = JSON.stringify(renderJson(call.args ?? {}, scope));
      outputChars += input.length;
      content.push({ type: 'tool-call', toolCallId: `call_${reading.toolCallsSoFar + index + 1}`, toolName: call.name, input });
    });
  } else {
    const text = action.kind === 'reply' ? renderTemplate(action.template, scope) : summarize(reading);
    outputChars = text.length;
    content.push({ type: 'text', text });
  }
  const inputTokens = Math.ceil(reading.chars / 4);
  const outputTokens = Math.ceil(outputChars / 4);
  return {
    content,
    finishReason: action.kind === 'toolCalls' ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
    },
    warnings: [],
  };
}

/** The reply after tool results when the script gives no `then`. */
function summarize(reading: PromptReading): string {
  if (reading.results.length === 0) return reading.input;
  const lines = reading.results.map((result) =>
    result.error !== undefined ? `${result.toolName} failed: ${result.error}` : `${result.toolName} returned: ${result.text}`,
  );
  return lines.join('\n');
}

function toStream(result: LanguageModelV3GenerateResult): ReadableStream<LanguageModelV3StreamPart> {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  result.content.forEach((part, index) => {
    if (part.type === 'text') {
      const id = `text-${index}`;
      parts.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: part.text }, { type: 'text-end', id });
    } else if (part.type === 'tool-call') {
      parts.push(part);
    }
  });
  parts.push({ type: 'finish', usage: result.usage, finishReason: result.finishReason });
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
