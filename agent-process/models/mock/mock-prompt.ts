/**
 * What the mock reads from a prompt: the latest user text, the system text, how many tool-call
 * steps followed the user text (the depth that picks the rule's action), the tool results of the
 * previous step and how many tool calls the whole conversation holds (for `call_<n>` ids). Everything is derived from the
 * prompt, so a restarted process continues a scripted session exactly where it stopped.
 */
import type { LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { JsonValue } from '../../../shared/types/json.ts';
import { isJsonValue } from '../../validation/json-value.ts';

export interface MockToolResult {
  toolName: string;
  text: string;
  value: JsonValue | undefined;
  error?: string;
}

export interface PromptReading {
  input: string;
  depth: number;
  results: MockToolResult[];
  toolCallsSoFar: number;
  /** The system message text (the prompt and context blocks of `context-message`). */
  system: string;
  /** Characters of prompt text (for deterministic token counts). */
  chars: number;
}

/**
 * Reads prompt after prompt of one conversation, looking at each message once: the engine's prompt
 * converter hands the same message objects to every call, so only those past the unchanged prefix
 * are new. Reading the whole history each call (a JSON.stringify per tool call and result) made the
 * mock's own cost grow with the conversation: ~55 % of an agent's CPU at ~6,000 messages.
 */
export class PromptReader {
  /** The previous prompt's messages, compared by identity with the next one. */
  private readonly seen: LanguageModelV3Message[] = [];
  /**
   * Sums over seen[0, i) at index i: characters (system messages' aside), tool calls, the latest user
   * message's index, system messages.
   */
  private readonly chars: number[] = [0];
  private readonly toolCalls: number[] = [0];
  private readonly latestUser: number[] = [-1];
  private readonly systemCount: number[] = [0];
  /** Texts of the system messages in seen, in order (their characters are summed from here: a replaced one is patched). */
  private readonly systemTexts: string[] = [];

  read(prompt: LanguageModelV3Prompt): PromptReading {
    const limit = Math.min(prompt.length, this.seen.length);
    let same = 0;
    for (; same < limit; same++) {
      const now = prompt[same];
      const before = this.seen[same];
      if (now === before) continue;
      // A system message replaced where it stands (a prompt that names each event) is patched: the
      // messages after it are not read again.
      if (now?.role !== 'system' || before?.role !== 'system') break;
      this.seen[same] = now;
      this.systemTexts[this.systemCount[same] ?? 0] = now.content;
    }
    this.truncate(same);
    for (let index = same; index < prompt.length; index++) this.push(prompt[index] as LanguageModelV3Message, index);
    const end = prompt.length;
    let systemChars = 0;
    for (const text of this.systemTexts) systemChars += text.length;
    return {
      ...currentTurn(prompt, this.latestUser[end] ?? -1),
      toolCallsSoFar: this.toolCalls[end] ?? 0,
      system: this.systemTexts.join('\n\n'),
      chars: (this.chars[end] ?? 0) + systemChars,
    };
  }

  private truncate(length: number): void {
    this.seen.length = length;
    for (const sums of [this.chars, this.toolCalls, this.latestUser, this.systemCount]) sums.length = length + 1;
    this.systemTexts.length = this.systemCount[length] ?? 0;
  }

  private push(message: LanguageModelV3Message, index: number): void {
    const chars = this.chars[index] ?? 0;
    const toolCalls = this.toolCalls[index] ?? 0;
    const latestUser = this.latestUser[index] ?? -1;
    this.seen.push(message);
    if (message.role === 'system') {
      this.systemTexts.push(message.content);
      this.chars.push(chars);
      this.toolCalls.push(toolCalls);
      this.latestUser.push(latestUser);
    } else {
      const own = figuresOf(message);
      this.chars.push(chars + own.chars);
      this.toolCalls.push(toolCalls + own.toolCalls);
      this.latestUser.push(message.role === 'user' ? index : latestUser);
    }
    this.systemCount.push(this.systemTexts.length);
  }
}

/** One prompt on its own (no earlier prompt to build on). */
export function readPrompt(prompt: LanguageModelV3Prompt): PromptReading {
  return new PromptReader().read(prompt);
}

/** A message's own characters and tool calls, once per message object: a prompt that changed before its end is read again from there. */
const ownFigures = new WeakMap<LanguageModelV3Message, { chars: number; toolCalls: number }>();

function figuresOf(message: Exclude<LanguageModelV3Message, { role: 'system' }>): { chars: number; toolCalls: number } {
  let figures = ownFigures.get(message);
  if (figures) return figures;
  figures = { chars: 0, toolCalls: 0 };
  for (const part of message.content) {
    if (part.type === 'text') figures.chars += part.text.length;
    else if (part.type === 'tool-call') {
      figures.toolCalls++;
      figures.chars += JSON.stringify(part.input ?? null).length;
    } else if (part.type === 'tool-result') figures.chars += outputText(part.output).length;
  }
  ownFigures.set(message, figures);
  return figures;
}

/** The latest user text, and the tool-call steps and last results after it: this turn's messages only. */
function currentTurn(prompt: LanguageModelV3Prompt, latestUser: number): Pick<PromptReading, 'input' | 'depth' | 'results'> {
  let input = '';
  const userMessage = latestUser >= 0 ? prompt[latestUser] : undefined;
  if (userMessage?.role === 'user') input = userMessage.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');

  let depth = 0;
  let lastCallStep = -1;
  for (let i = latestUser + 1; i < prompt.length; i++) {
    const message = prompt[i];
    if (message?.role === 'assistant' && message.content.some((part) => part.type === 'tool-call')) {
      depth++;
      lastCallStep = i;
    }
  }
  const results: MockToolResult[] = [];
  if (lastCallStep >= 0) {
    for (let i = lastCallStep + 1; i < prompt.length; i++) {
      const message = prompt[i];
      if (message?.role !== 'tool') continue;
      for (const part of message.content) if (part.type === 'tool-result') results.push(readResult(part.toolName, part.output));
    }
  }
  return { input, depth, results };
}

function readResult(toolName: string, output: LanguageModelV3ToolResultOutput): MockToolResult {
  const text = outputText(output);
  switch (output.type) {
    case 'json': {
      const value = isJsonValue(output.value) ? output.value : undefined;
      const error = engineErrorMessage(value);
      return error === undefined ? { toolName, text, value } : { toolName, text, value, error };
    }
    case 'text':
      return { toolName, text, value: parseMaybe(output.value) };
    case 'error-text':
      return { toolName, text, value: output.value, error: output.value };
    case 'error-json':
      return { toolName, text, value: isJsonValue(output.value) ? output.value : undefined, error: text };
    case 'execution-denied':
      return { toolName, text, value: text, error: text };
    default:
      return { toolName, text, value: text };
  }
}

/** The engine sends errors as `{status:'error', error:{code, message, …}}`. */
function engineErrorMessage(value: JsonValue | undefined): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value.status !== 'error') return undefined;
  const error = value.error;
  if (error !== null && typeof error === 'object' && !Array.isArray(error) && typeof error.message === 'string') {
    return typeof error.code === 'string' ? `${error.code}: ${error.message}` : error.message;
  }
  return 'tool failed';
}

function outputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return `execution denied${output.reason ? `: ${output.reason}` : ''}`;
    case 'content':
      return output.value.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  }
}

function parseMaybe(text: string): JsonValue {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonValue(value) ? value : text;
  } catch {
    return text;
  }
}
