/**
 * A Telegram Update → a `telegram_message` event. Properties follow the upstream connector
 * (`chat_id`, `chat_type`, `message_id`, `from_id`, `from_username`, …) plus `username` and
 * `text`; the conversation key is `telegram:<chat_id>`. Updates without text (stickers, joins)
 * and messages from bots are not events.
 */
import type { ConnectorEvent } from '../../../../shared/types/index.ts';
import { definedProperties, idAt, recordAt, textAt } from '../common/payload-fields.ts';

export function telegramEvent(update: unknown): ConnectorEvent | undefined {
  const message = recordAt(update, 'message');
  const chat = recordAt(message, 'chat');
  const chatId = idAt(chat, 'id');
  const from = recordAt(message, 'from');
  const text = textAt(message, 'text') ?? textAt(message, 'caption');
  if (!message || chatId === undefined || text === undefined || from?.is_bot === true) return undefined;
  const username = textAt(from, 'username');
  return {
    name: 'telegram_message',
    message: { type: 'text', text },
    instanceKey: `telegram:${chatId}`,
    properties: definedProperties({
      update_id: idAt(update, 'update_id'),
      chat_id: chatId,
      chat_type: textAt(chat, 'type'),
      chat_title: textAt(chat, 'title'),
      message_id: idAt(message, 'message_id'),
      date: idAt(message, 'date'),
      from_id: idAt(from, 'id'),
      username,
      from_username: username,
      from_first_name: textAt(from, 'first_name'),
      text,
    }),
  };
}
