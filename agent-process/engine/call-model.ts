/**
 * One model call per step (ARCHITECTURE §4): the provider's `LanguageModelV3.doStream` called
 * directly — the AI SDK's provider adapters without `generateText`, whose zod re-validation of the
 * whole history made every call cost more as a conversation grew. The prompt arrives converted
 * (models/prompt-converter.ts, incremental), the step's catalog goes as function tools (schemas
 * verbatim), text deltas are handed on as they stream, and the answer is read back as the
 * assistant message to append and the tool calls to run. Arguments that are not valid JSON are
 * repaired where unambiguous (seed 004 §8) or carried as an error — never replaced by `{}`.
 */
import type { JSONSchema7, LanguageModelV3CallOptions, LanguageModelV3FunctionTool, LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider';
import type { AssistantModelMessage } from 'ai';
import type { JsonSchemaObject } from '../../shared/types/resources.ts';
import type { ToolCall, ToolCatalogItem } from '../../shared/types/tools.ts';
import type { TokenUsage } from '../../shared/types/turns.ts';
import type { ResolvedModel } from '../models/create-language-model.ts';
import { withModelRetries } from '../models/model-retry.ts';
import { readModelStream, type StreamedPart } from '../models/read-model-stream.ts';
import { validateToolArgs } from '../tools/args-validation.ts';
import { parseToolArguments } from '../tools/json-repair.ts';

export interface ModelToolCall {
  call: ToolCall;
  /** Why the arguments could not be used (unparseable / not an object). */
  argsError?: string;
  /** What the repair changed, when the arguments were repaired. */
  repairs?: string[];
}

export interface ModelAnswer {
  /** The assistant message to append (null when the model returned nothing at all). */
  assistant: AssistantModelMessage | null;
  text: string;
  toolCalls: ModelToolCall[];
  usage?: TokenUsage;
  finishReason: string;
  durationMs: number;
  /** Provider warnings (unsupported settings, …), for the engine's log. */
  warnings: unknown[];
}

export interface ModelCallOptions {
  abortSignal?: AbortSignal;
  /** Each piece of text as the model streams it. */
  onTextDelta?: (text: string) => void;
}

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];

const EMPTY_PARAMETERS: JsonSchemaObject = { type: 'object', properties: {} };

export async function callModel(resolved: ResolvedModel, prompt: LanguageModelV3Prompt, catalog: readonly ToolCatalogItem[], options: ModelCallOptions = {}): Promise<ModelAnswer> {
  const started = performance.now();
  const { settings } = resolved;
  const tools = catalog.length > 0 ? catalog.map(toFunctionTool) : undefined;
  const call: LanguageModelV3CallOptions = {
    prompt,
    ...(tools ? { tools, toolChoice: { type: 'auto' } } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    ...(settings.topP !== undefined ? { topP: settings.topP } : {}),
    ...(settings.providerOptions !== undefined ? { providerOptions: settings.providerOptions } : {}),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  };
  const { stream } = await withModelRetries(() => resolved.model.doStream(call), {
    maxRetries: settings.maxRetries,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  const streamed = await readModelStream(stream, options.onTextDelta);
  const durationMs = performance.now() - started;

  const schemas = new Map(catalog.map((item) => [item.name, item.parameters]));
  const toolCalls: ModelToolCall[] = [];
  const content: AssistantPart[] = [];
  for (const part of streamed.parts) {
    if (part.type !== 'tool-call') {
      content.push(part);
      continue;
    }
    const read = readToolCall(part, schemas.get(part.toolName));
    content.push({
      type: 'tool-call',
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      input: read.call.args,
      ...(part.providerExecuted !== undefined ? { providerExecuted: part.providerExecuted } : {}),
      ...(part.providerOptions !== undefined ? { providerOptions: part.providerOptions } : {}),
    });
    // A tool the provider ran itself has its result in the answer already; the engine runs the rest.
    if (part.providerExecuted !== true) toolCalls.push(read);
  }
  const usage = tokenUsage(streamed.usage);
  return {
    assistant: content.length > 0 ? { role: 'assistant', content } : null,
    text: streamed.text,
    toolCalls,
    ...(usage ? { usage } : {}),
    finishReason: streamed.finishReason,
    durationMs,
    warnings: streamed.warnings,
  };
}

// Catalog items are rebuilt every step but keep their identity when unchanged.
const functionTools = new WeakMap<ToolCatalogItem, LanguageModelV3FunctionTool>();

function toFunctionTool(item: ToolCatalogItem): LanguageModelV3FunctionTool {
  let tool = functionTools.get(item);
  if (!tool) {
    const parameters = item.parameters ?? EMPTY_PARAMETERS;
    tool = {
      type: 'function',
      name: item.name,
      ...(item.description !== undefined ? { description: item.description } : {}),
      inputSchema: isJsonSchema7(parameters) ? parameters : {},
    };
    functionTools.set(item, tool);
  }
  return tool;
}

/** Catalog schemas were checked as JSON Schema objects by the config plane (Tool resources) or the registry (extension tools). */
function isJsonSchema7(schema: JsonSchemaObject): schema is JsonSchemaObject & JSONSchema7 {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema);
}

function readToolCall(part: Extract<StreamedPart, { type: 'tool-call' }>, schema: JsonSchemaObject | undefined): ModelToolCall {
  const base = { id: part.toolCallId, name: part.toolName };
  const parsed = parseToolArguments(part.input, (value) => validateToolArgs(schema, value).ok);
  if (parsed.ok) {
    const call: ToolCall = { ...base, args: parsed.value };
    return parsed.repairs.length > 0 ? { call, repairs: parsed.repairs } : { call };
  }
  return { call: { ...base, args: {}, rawArgs: part.input }, argsError: parsed.reason };
}

function tokenUsage(usage: LanguageModelV3Usage | undefined): TokenUsage | undefined {
  const input = usage?.inputTokens.total;
  const output = usage?.outputTokens.total;
  if (input === undefined && output === undefined) return undefined;
  const promptTokens = input ?? 0;
  const completionTokens = output ?? 0;
  const cached = usage?.inputTokens.cacheRead;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, ...(cached ? { cachedPromptTokens: cached } : {}) };
}
