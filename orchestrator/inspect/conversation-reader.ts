/**
 * An instance's conversation as the agent would recover it (SPEC.md §3.1): `base.jsonl`, its
 * replacements in `base-edits.jsonl`, then every event of `events.jsonl` applied in order.
 * Read-only, for the studio: the agent process owns these files, so this is a fold of what is on
 * disk now, without the agent's warnings. A rewrite a crash left past its commit point is read as
 * its agent will finish it: the new base alone.
 */
import { existsSync } from 'node:fs';
import { foldedEvents, rewritingBase } from '../../shared/state-paths.ts';
import type { Message, MessageEvent } from '../../shared/types/messages.ts';
import { readJsonLines } from './jsonl-file.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';

const message = {
  type: 'object',
  required: ['id', 'data', 'metadata', 'createdAt', 'source'],
  properties: {
    id: { type: 'string' },
    data: { type: 'object', required: ['role', 'content'], properties: { role: { enum: ['system', 'user', 'assistant', 'tool'] } } },
    metadata: { type: 'object' },
    createdAt: { type: 'string' },
    source: { type: 'object', required: ['type'] },
  },
};
const isMessage = compiledValidator<Message>({ schema: message, options: { strict: false } });
const isMessageEvent = compiledValidator<MessageEvent>({
  options: { strict: false },
  schema: {
    oneOf: [
      { type: 'object', required: ['type', 'message'], properties: { type: { enum: ['append'] }, message } },
      { type: 'object', required: ['type', 'targetId', 'message'], properties: { type: { enum: ['replace'] }, targetId: { type: 'string' }, message } },
      { type: 'object', required: ['type', 'targetId'], properties: { type: { enum: ['remove'] }, targetId: { type: 'string' } } },
      { type: 'object', required: ['type'], properties: { type: { enum: ['truncate'] } } },
    ],
  },
});

export function readConversation(files: { base: string; edits: string; events: string }): Message[] {
  const rewritten = existsSync(foldedEvents(files.events));
  const base = rewritten && existsSync(rewritingBase(files.base)) ? rewritingBase(files.base) : files.base;
  const messages = readJsonLines(base).filter((line): line is Message => isMessage(line));
  // The edits file holds replacements only (agent-process/conversation/message-store.ts).
  const edits = rewritten ? [] : readJsonLines(files.edits).filter((line): line is MessageEvent => isMessageEvent(line) && line.type === 'replace');
  const events = readJsonLines(files.events).filter((line): line is MessageEvent => isMessageEvent(line));
  for (const event of [...edits, ...events]) applyEvent(messages, event);
  return messages;
}

function applyEvent(messages: Message[], event: MessageEvent): void {
  switch (event.type) {
    case 'append':
      // Replayed over a base that already holds it (a crash between fold and clear).
      if (!messages.some((m) => m.id === event.message.id)) messages.push(event.message);
      return;
    case 'replace': {
      const at = messages.findIndex((m) => m.id === event.targetId);
      if (at >= 0) messages[at] = event.message;
      return;
    }
    case 'remove': {
      const at = messages.findIndex((m) => m.id === event.targetId);
      if (at >= 0) messages.splice(at, 1);
      return;
    }
    case 'truncate':
      messages.length = 0;
      return;
  }
}
