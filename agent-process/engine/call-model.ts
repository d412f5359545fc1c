/**
 * One model call per step (ARCHITECTURE §4): AI SDK `generateText` with the step's catalog as
 * tools WITHOUT `execute` (schemas passed verbatim through `jsonSchema`), then the answer read back
 * as the assistant message to append and the tool calls to run. Arguments that are not valid JSON
 * are repaired where unambiguous (seed 004 §8) or carried as an error — never replaced by `{}`.
 */
import type { JSONSchema7 } from '@ai-sdk/provider';
import { generateText, jsonSchema, tool, type AssistantModelMessage, type LanguageModelUsage, type ModelMessage, type ToolSet } from 'ai';
import { isJsonObject, type JsonObject } from '../../shared/types/json.ts';
import type { JsonSchemaObject } from '../../shared/types/resources.ts';
import type { ToolCall, ToolCatalogItem } from '../../shared/types/tools.ts';
import type { TokenUsage } from '../../shared/types/turns.ts';
import type { ResolvedModel } from '../models/create-language-model.ts';
import { validateToolArgs } from '../tools/args-validation.ts';
import { describeJsonType, parseToolArguments } from '../tools/json-repair.ts';

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

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];
type KeptPart = Extract<AssistantPart, { type: 'text' | 'reasoning' | 'tool-call' }>;

const EMPTY_PARAMETERS: JsonSchemaObject = { type: 'object', properties: {} };

// The AI SDK prints warnings with console.info/warn, which would interleave with the JSON log lines
// on stdout; the engine logs `result.warnings` through pino instead (unless someone chose a logger).
globalThis.AI_SDK_LOG_WARNINGS ??= false;

export async function callModel(
  resolved: ResolvedModel,
  messages: ModelMessage[],
  catalog: readonly ToolCatalogItem[],
  abortSignal?: AbortSignal,
): Promise<ModelAnswer> {
  const started = performance.now();
  const tools = toToolSet(catalog);
  const result = await generateText({
    model: resolved.model,
    messages,
    // The system prompt arrives as a system message from context-message (SPEC.md §9.8 gap).
    allowSystemInMessages: true,
    ...(tools ? { tools } : {}),
    ...resolved.settings,
    ...(abortSignal ? { abortSignal } : {}),
  });
  const durationMs = performance.now() - started;

  const schemas = new Map(catalog.map((item) => [item.name, item.parameters]));
  const toolCalls = result.toolCalls.map((call) => readToolCall(call, schemas.get(call.toolName)));
  const argsById = new Map(toolCalls.map((c) => [c.call.id, c.call.args]));

  const answer = result.response.messages.find((message) => message.role === 'assistant');
  let assistant: AssistantModelMessage | null = null;
  if (answer !== undefined && answer.role === 'assistant') {
    const content = typeof answer.content === 'string' ? [{ type: 'text' as const, text: answer.content }] : answer.content;
    const parts: KeptPart[] = [];
    for (const part of content) {
      if (part.type === 'tool-call') parts.push({ ...part, input: argsById.get(part.toolCallId) ?? {} });
      // Files (binary) are not stored; text, reasoning and tool calls are what a replay needs.
      else if (part.type === 'text' || part.type === 'reasoning') parts.push(part);
    }
    if (parts.length > 0) assistant = { role: 'assistant', content: parts };
  }
  const usage = tokenUsage(result.usage);
  return { assistant, text: result.text, toolCalls, ...(usage ? { usage } : {}), finishReason: result.finishReason, durationMs, warnings: result.warnings ?? [] };
}

function toToolSet(catalog: readonly ToolCatalogItem[]): ToolSet | undefined {
  if (catalog.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const item of catalog) {
    const parameters = item.parameters ?? EMPTY_PARAMETERS;
    tools[item.name] = tool({
      ...(item.description !== undefined ? { description: item.description } : {}),
      inputSchema: jsonSchema(isJsonSchema7(parameters) ? parameters : {}),
    });
  }
  return tools;
}

/** Catalog schemas were checked as JSON Schema objects by the config plane (Tool resources) or the registry (extension tools). */
function isJsonSchema7(schema: JsonSchemaObject): schema is JsonSchemaObject & JSONSchema7 {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema);
}

interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
}

function readToolCall(sdkCall: SdkToolCall, schema: JsonSchemaObject | undefined): ModelToolCall {
  const base = { id: sdkCall.toolCallId, name: sdkCall.toolName };
  const input = sdkCall.input;
  // AI SDK hands back the raw text when JSON parsing failed (`invalid: true`).
  if (typeof input === 'string' && sdkCall.invalid === true) {
    const parsed = parseToolArguments(input, (value) => validateToolArgs(schema, value).ok);
    if (parsed.ok) {
      const call: ToolCall = { ...base, args: parsed.value };
      return parsed.repairs.length > 0 ? { call, repairs: parsed.repairs } : { call };
    }
    return { call: { ...base, args: {}, rawArgs: input }, argsError: parsed.reason };
  }
  if (isJsonObject(input)) return { call: { ...base, args: cloneArgs(input) } };
  if (input === undefined || input === null) return { call: { ...base, args: {} } };
  return {
    call: { ...base, args: {}, rawArgs: JSON.stringify(input) },
    argsError: `arguments must be a JSON object, got ${describeJsonType(input)}`,
  };
}

function cloneArgs(input: JsonObject): JsonObject {
  return structuredClone(input);
}

function tokenUsage(usage: LanguageModelUsage): TokenUsage | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined && usage.totalTokens === undefined) return undefined;
  const promptTokens = usage.inputTokens ?? 0;
  const completionTokens = usage.outputTokens ?? 0;
  const cached = usage.inputTokenDetails?.cacheReadTokens;
  return { promptTokens, completionTokens, totalTokens: usage.totalTokens ?? promptTokens + completionTokens, ...(cached ? { cachedPromptTokens: cached } : {}) };
}
