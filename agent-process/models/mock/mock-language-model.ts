/**
 * The `mock` provider: a deterministic scripted model implemented as a real AI SDK
 * `LanguageModelV3`, so it runs through exactly the same model-call path as the real providers.
 * It streams its reply in word-sized chunks (`chunkDelayMs` apart, after `latencyMs`). The script
 * (Model `spec.options`) is described in docs/mock-model.md.
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
import { abortableSleep } from '../abortable-sleep.ts';
import { PromptReader, type PromptReading } from './mock-prompt.ts';
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
  // Created for one agent's engine: its conversation's prompts, call after call (any prompt reads right).
  const reader = new PromptReader();
  const generate = async (call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
    if (script.latencyMs > 0) await abortableSleep(script.latencyMs, call.abortSignal);
    return respond(script, config, reader.read(call.prompt));
  };
  return {
    specificationVersion: 'v3',
    provider: 'goondan.mock',
    modelId: config.modelId,
    supportedUrls: {},
    doGenerate: generate,
    doStream: async (call): Promise<LanguageModelV3StreamResult> => ({ stream: toStream(await generate(call), script.chunkDelayMs, call.abortSignal) }),
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

/** Words with the whitespace after them (leading whitespace stays with the first word). */
export function wordChunks(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

function toStream(result: LanguageModelV3GenerateResult, chunkDelayMs: number, signal: AbortSignal | undefined): ReadableStream<LanguageModelV3StreamPart> {
  const parts: Array<LanguageModelV3StreamPart | { pause: true }> = [{ type: 'stream-start', warnings: [] }];
  result.content.forEach((part, index) => {
    if (part.type === 'text') {
      const id = `text-${index}`;
      parts.push({ type: 'text-start', id });
      wordChunks(part.text).forEach((delta, n) => {
        if (n > 0 && chunkDelayMs > 0) parts.push({ pause: true });
        parts.push({ type: 'text-delta', id, delta });
      });
      parts.push({ type: 'text-end', id });
    } else if (part.type === 'tool-call') {
      parts.push({ type: 'tool-input-start', id: part.toolCallId, toolName: part.toolName });
      parts.push({ type: 'tool-input-delta', id: part.toolCallId, delta: part.input });
      parts.push({ type: 'tool-input-end', id: part.toolCallId }, part);
    }
  });
  parts.push({ type: 'finish', usage: result.usage, finishReason: result.finishReason });
  if (chunkDelayMs === 0) {
    return new ReadableStream({
      start(controller) {
        for (const part of parts) if (!('pause' in part)) controller.enqueue(part);
        controller.close();
      },
    });
  }
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      for (;;) {
        const part = parts[next++];
        if (part === undefined) return controller.close();
        if ('pause' in part) await abortableSleep(chunkDelayMs, signal);
        else {
          controller.enqueue(part);
          // One chunk per pull after a pause, so a reader sees each chunk when it is produced.
          if (part.type === 'text-delta') return;
        }
      }
    },
  });
}
