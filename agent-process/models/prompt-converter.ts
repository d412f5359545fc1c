/**
 * The conversation as a `LanguageModelV3Prompt`, converted incrementally: each message is checked
 * and converted once (it is immutable once appended), and a model call re-uses the prompt of the
 * previous call up to the first message that changed. The AI SDK's `generateText` re-validated the
 * whole history with zod on every call (~18 ms at 600 messages); this keeps the per-call cost flat.
 * Consecutive tool messages are merged into one, as the AI SDK does (Anthropic needs every result
 * of a step in one message).
 */
import type { LanguageModelV3FilePart, LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { GoondanError } from '../../shared/errors/index.ts';

type UserPart = Extract<LanguageModelV3Message, { role: 'user' }>['content'][number];
type AssistantPart = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'][number];
type ToolPart = Extract<LanguageModelV3Message, { role: 'tool' }>['content'][number];
type ToolMessage = Extract<LanguageModelV3Message, { role: 'tool' }>;

export class PromptConverter {
  private readonly converted = new WeakMap<ModelMessage, LanguageModelV3Message | null>();
  /**
   * The previous call's messages, to compare the next call with: a copy, or with a revision the
   * caller's array itself (which it only appends to: a changed element comes in a new array).
   */
  private inputs: readonly ModelMessage[] = [];
  private revision: number | undefined;
  /** The previous call's patch log (see convert), and how much of it that call took in. */
  private patched: readonly number[] = NO_PATCHES;
  private patchedSeen = 0;
  /** Built in place; callers get copies. */
  private readonly prompt: LanguageModelV3Prompt = [];
  /** promptLength[i]: length of the prompt built from the previous call's messages[0, i) (one entry per message, and the 0 before them). */
  private readonly promptLength: number[] = [0];

  /**
   * Throws E_MODEL_PROMPT naming the message when one is malformed (extensions can append any message).
   * `revision`: the caller's promise that, while it is the same as in the previous call, `messages`
   * only grew at its end or had the elements at the positions `patched` lists replaced (a
   * conversation's live array and its log, `Conversation.modelView`): then only the new and the
   * patched messages are looked at, not the whole history. A caller that moves elements passes a new
   * array (and a new revision, and a new log).
   */
  convert(messages: readonly ModelMessage[], revision?: number, patched: readonly number[] = NO_PATCHES): LanguageModelV3Prompt {
    const vouched = revision !== undefined && revision === this.revision && patched === this.patched;
    try {
      let same = vouched ? this.patchedInPlace(messages, patched) : this.unchangedOrPatched(messages, this.firstUnseenPatch());
      // A tool run that continues past the unchanged prefix is merged again from its start.
      while (same > 0 && messages[same - 1]?.role === 'tool' && same < messages.length) same--;
      this.prompt.length = this.promptLength[same] ?? 0;
      this.promptLength.length = same + 1;
      for (let i = same; i < messages.length; i++) {
        const message = messages[i];
        if (message !== undefined) appendMerged(this.prompt, this.convertOne(message, i));
        this.promptLength.push(this.prompt.length);
      }
    } catch (error) {
      // The prompt was being rebuilt in place for messages the next call may not share: start over then.
      this.forget();
      throw error;
    }
    // Without a revision the caller's array may change in place: keep a copy to compare the next call with.
    this.inputs = revision === undefined ? messages.slice() : messages;
    this.revision = revision;
    this.patched = patched;
    this.patchedSeen = patched.length;
    // Callers get their own array: providers must not see (or change) the cached one.
    return this.prompt.slice();
  }

  private forget(): void {
    this.prompt.length = 0;
    this.promptLength.length = 1;
    this.inputs = [];
    this.revision = undefined;
    this.patched = NO_PATCHES;
    this.patchedSeen = 0;
  }

  /**
   * The same array as the previous call's: the positions its log added since are patched where they
   * stand (or the prompt is built again from the first that cannot be); the rest is unchanged.
   */
  private patchedInPlace(messages: readonly ModelMessage[], patched: readonly number[]): number {
    let same = Math.min(this.promptLength.length - 1, messages.length);
    for (let k = this.patchedSeen; k < patched.length; k++) {
      const i = patched[k] ?? 0;
      if (i < same && !this.patch(messages[i], i)) same = i;
    }
    return same;
  }

  /** The previous array was patched after that call at these positions: its elements there are not what was converted. */
  private firstUnseenPatch(): number {
    let first = Number.POSITIVE_INFINITY;
    for (let k = this.patchedSeen; k < this.patched.length; k++) first = Math.min(first, this.patched[k] ?? 0);
    return first;
  }

  /**
   * How many leading messages need no converting again: the very ones of the previous call (up to
   * `limit`), and among them messages replaced one for one (a system prompt that names each event,
   * replaced every turn), patched into the prompt where they stand instead of the prompt being built
   * again from the first of them. The rebuild starts where that stops.
   */
  private unchangedOrPatched(messages: readonly ModelMessage[], limit: number): number {
    const end = Math.min(messages.length, this.inputs.length, this.promptLength.length - 1, limit);
    let i = 0;
    for (; i < end; i++) {
      if (messages[i] === this.inputs[i]) continue;
      if (!this.patch(messages[i], i)) break;
    }
    return i;
  }

  /** Puts message i's conversion in the slot the previous one had: only one that had its own (not merged into a tool run, not dropped) and gets one. */
  private patch(message: ModelMessage | undefined, i: number): boolean {
    const at = this.promptLength[i] ?? 0;
    if (message === undefined || message.role === 'tool' || this.prompt[at]?.role === 'tool' || (this.promptLength[i + 1] ?? 0) - at !== 1) return false;
    const converted = this.convertOne(message, i);
    if (converted === null) return false;
    this.prompt[at] = converted;
    return true;
  }

  private convertOne(message: ModelMessage, index: number): LanguageModelV3Message | null {
    let converted = this.converted.get(message);
    if (converted === undefined) {
      converted = convertMessage(message, index);
      this.converted.set(message, converted);
    }
    return converted;
  }
}

const NO_PATCHES: readonly number[] = [];

function appendMerged(prompt: LanguageModelV3Prompt, message: LanguageModelV3Message | null): void {
  if (message === null) return;
  const last = prompt[prompt.length - 1];
  if (message.role === 'tool' && last?.role === 'tool') {
    const merged: ToolMessage = { role: 'tool', content: [...last.content, ...message.content] };
    if (message.providerOptions) merged.providerOptions = message.providerOptions;
    prompt[prompt.length - 1] = merged;
    return;
  }
  prompt.push(message);
}

class PromptProblem extends Error {}

function convertMessage(message: ModelMessage, index: number): LanguageModelV3Message | null {
  try {
    return convertChecked(message);
  } catch (error) {
    if (!(error instanceof PromptProblem)) throw error;
    throw new GoondanError('E_MODEL_PROMPT', 'user', `conversation message ${index} (${String(message.role)}) cannot be sent to the model: ${error.message}`, {
      suggestion: 'An extension probably appended or replaced a malformed message; check the extensions that emit message events.',
    });
  }
}

function convertChecked(message: ModelMessage): LanguageModelV3Message | null {
  const options = message.providerOptions ? { providerOptions: message.providerOptions } : {};
  switch (message.role) {
    case 'system':
      if (typeof message.content !== 'string') throw new PromptProblem('a system message needs string content');
      return { role: 'system', content: message.content, ...options };
    case 'user': {
      if (typeof message.content === 'string') return { role: 'user', content: [{ type: 'text', text: message.content }], ...options };
      const content = partsOf(message.content).map(userPart).filter((part) => part.type !== 'text' || part.text !== '');
      return { role: 'user', content, ...options };
    }
    case 'assistant': {
      if (typeof message.content === 'string') return { role: 'assistant', content: [{ type: 'text', text: message.content }], ...options };
      const content: AssistantPart[] = [];
      for (const part of partsOf(message.content)) {
        const converted = assistantPart(part);
        if (converted) content.push(converted);
      }
      return { role: 'assistant', content, ...options };
    }
    case 'tool': {
      const content: ToolPart[] = [];
      for (const part of partsOf(message.content)) {
        const converted = toolPart(part);
        if (converted) content.push(converted);
      }
      return content.length === 0 ? null : { role: 'tool', content, ...options };
    }
    default:
      throw new PromptProblem(`unknown role '${roleOf(message)}'`);
  }
}

function partsOf<T>(content: readonly T[]): readonly T[] {
  if (!Array.isArray(content)) throw new PromptProblem('content must be a string or an array of parts');
  return content;
}

function roleOf(message: unknown): string {
  return typeof message === 'object' && message !== null && 'role' in message ? String(message.role) : typeof message;
}

/** The `type` of a part the switch did not know, for the message (the value is untrusted). */
function typeOf(part: unknown): string {
  return typeof part === 'object' && part !== null && 'type' in part ? String(part.type) : typeof part;
}

type AnyUserPart = Exclude<Extract<ModelMessage, { role: 'user' }>['content'], string>[number];
type AnyAssistantPart = Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>[number];
type AnyToolPart = Extract<ModelMessage, { role: 'tool' }>['content'][number];

function userPart(part: AnyUserPart): UserPart {
  switch (part?.type) {
    case 'text':
      return textPart(part);
    case 'image':
      return filePart(part.image, part.mediaType ?? 'image/*', undefined, part.providerOptions);
    case 'file':
      return filePart(part.data, requireString(part.mediaType, 'a file part needs mediaType'), part.filename, part.providerOptions);
    default:
      throw new PromptProblem(`a user message cannot hold a '${typeOf(part)}' part`);
  }
}

function assistantPart(part: AnyAssistantPart): AssistantPart | undefined {
  switch (part?.type) {
    case 'text':
      // Empty text without provider options carries nothing (the AI SDK drops it too).
      return part.text === '' && part.providerOptions === undefined ? undefined : textPart(part);
    case 'reasoning':
      return { type: 'reasoning', text: requireString(part.text, 'a reasoning part needs text'), ...withOptions(part.providerOptions) };
    case 'file':
      return filePart(part.data, requireString(part.mediaType, 'a file part needs mediaType'), part.filename, part.providerOptions);
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: requireString(part.toolCallId, 'a tool-call part needs toolCallId'),
        toolName: requireString(part.toolName, 'a tool-call part needs toolName'),
        input: part.input,
        ...(part.providerExecuted !== undefined ? { providerExecuted: part.providerExecuted } : {}),
        ...withOptions(part.providerOptions),
      };
    case 'tool-result':
      return toolResultPart(part);
    case 'tool-approval-request':
      return undefined;
    default:
      throw new PromptProblem(`an assistant message cannot hold a '${typeOf(part)}' part`);
  }
}

function toolPart(part: AnyToolPart): ToolPart | undefined {
  switch (part?.type) {
    case 'tool-result':
      return toolResultPart(part);
    case 'tool-approval-response':
      // Only provider-executed tools are approved through the provider (AI SDK semantics).
      return part.providerExecuted
        ? { type: 'tool-approval-response', approvalId: part.approvalId, approved: part.approved, ...(part.reason !== undefined ? { reason: part.reason } : {}) }
        : undefined;
    default:
      throw new PromptProblem(`a tool message cannot hold a '${typeOf(part)}' part`);
  }
}

function textPart(part: { text: string; providerOptions?: LanguageModelV3FilePart['providerOptions'] }): { type: 'text'; text: string; providerOptions?: LanguageModelV3FilePart['providerOptions'] } {
  return { type: 'text', text: requireString(part.text, 'a text part needs text'), ...withOptions(part.providerOptions) };
}

function toolResultPart(part: Extract<AnyToolPart, { type: 'tool-result' }>): Extract<ToolPart, { type: 'tool-result' }> {
  return {
    type: 'tool-result',
    toolCallId: requireString(part.toolCallId, 'a tool-result part needs toolCallId'),
    toolName: requireString(part.toolName, 'a tool-result part needs toolName'),
    output: toolOutput(part.output),
    ...withOptions(part.providerOptions),
  };
}

function toolOutput(output: Extract<AnyToolPart, { type: 'tool-result' }>['output']): LanguageModelV3ToolResultOutput {
  switch (output?.type) {
    case 'text':
    case 'error-text':
      requireString(output.value, `a '${output.type}' tool output needs a string value`);
      return output;
    case 'json':
    case 'error-json':
    case 'execution-denied':
      return output;
    case 'content':
      return {
        type: 'content',
        value: partsOf(output.value).map((item) => {
          // The prompt's `media` item is spelled image-data / file-data in the model spec.
          if (item.type !== 'media') return item;
          return item.mediaType.startsWith('image/')
            ? { type: 'image-data', data: item.data, mediaType: item.mediaType }
            : { type: 'file-data', data: item.data, mediaType: item.mediaType };
        }),
      };
    default:
      throw new PromptProblem(`unknown tool output type '${typeOf(output)}'`);
  }
}

function filePart(data: unknown, mediaType: string, filename: string | undefined, providerOptions: LanguageModelV3FilePart['providerOptions']): LanguageModelV3FilePart {
  const content = dataContent(data);
  return {
    type: 'file',
    data: content.data,
    mediaType: content.mediaType ?? mediaType,
    ...(filename !== undefined ? { filename } : {}),
    ...withOptions(providerOptions),
  };
}

/** Stored messages are JSON: data arrives as a URL string, a data: URL or base64 text. */
function dataContent(data: unknown): { data: LanguageModelV3FilePart['data']; mediaType?: string } {
  if (data instanceof URL || data instanceof Uint8Array) return { data };
  if (data instanceof ArrayBuffer) return { data: new Uint8Array(data) };
  if (typeof data !== 'string') throw new PromptProblem('file data must be a URL, a data: URL, base64 text or bytes');
  const dataUrl = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(data);
  if (dataUrl) return { data: dataUrl[2] ?? '', ...(dataUrl[1] ? { mediaType: dataUrl[1] } : {}) };
  if (/^https?:\/\//i.test(data)) return { data: new URL(data) };
  return { data };
}

function withOptions(providerOptions: LanguageModelV3FilePart['providerOptions']): { providerOptions?: LanguageModelV3FilePart['providerOptions'] } {
  return providerOptions === undefined ? {} : { providerOptions };
}

function requireString(value: unknown, problem: string): string {
  if (typeof value !== 'string') throw new PromptProblem(problem);
  return value;
}
