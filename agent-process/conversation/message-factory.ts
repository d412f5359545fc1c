/** New Messages with stable, unique ids (SPEC.md §3.1: ids are persisted and never regenerated). */
import type { ModelMessage } from 'ai';
import { newId } from '../../shared/ids.ts';
import type { JsonValue } from '../../shared/types/json.ts';
import type { Message, MessageSource } from '../../shared/types/messages.ts';

export function createMessage(data: ModelMessage, source: MessageSource, metadata: Record<string, JsonValue> = {}): Message {
  return { id: newId('msg'), data, metadata, createdAt: new Date().toISOString(), source };
}
