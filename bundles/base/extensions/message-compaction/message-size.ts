/**
 * How many characters a message puts in front of the model: text and reasoning, tool-call
 * arguments and tool results (JSON as serialised). Images and files count 0: the character budget
 * is about text; their cost is the provider's business.
 */
import type { ModelMessage, ToolResultPart } from 'ai';

// Message data is never edited in place (events swap whole messages), so a size stays valid for
// as long as its object lives: compaction measures the conversation before every model call.
const sizes = new WeakMap<ModelMessage, number>();

export function messageCharacters(data: ModelMessage): number {
  let size = sizes.get(data);
  if (size === undefined) {
    size = measure(data);
    sizes.set(data, size);
  }
  return size;
}

function measure(data: ModelMessage): number {
  if (typeof data.content === 'string') return data.content.length;
  let total = 0;
  for (const part of data.content) {
    if (part.type === 'text' || part.type === 'reasoning') total += part.text.length;
    else if (part.type === 'tool-call') total += JSON.stringify(part.input ?? null).length;
    else if (part.type === 'tool-result') total += toolOutputText(part.output).length;
  }
  return total;
}

/** A tool result as the text a model reads. */
export function toolOutputText(output: ToolResultPart['output']): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? '';
    case 'content':
      return output.value.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  }
}
