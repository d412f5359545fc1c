/**
 * `telegram__*`: a Telegram bot's actions through the Bot API (https://core.telegram.org/bots/api)
 * — send, edit, delete, react, set_chat_action, download_file (upstream's setChatAction /
 * downloadFile: export names are lowercase, tool spec §6.2). Calls are retried on 429 / 5xx /
 * network errors (bounded); a final failure is `E_TELEGRAM_API` with Telegram's description.
 */
import type { JsonObject, ToolContext, ToolHandler } from '../../../../shared/types/index.ts';
import { splitMessage } from '../../connectors/common/split-message.ts';
import { TELEGRAM_API_BASE_URL, TELEGRAM_MESSAGE_LIMIT, interpretTelegram } from '../../connectors/telegram/telegram-api.ts';
import { type ChatApiTarget, callChatApi, chatApiTarget } from '../chat-api-client.ts';
import { downloadToWorkspace } from '../chat-file-download.ts';
import { argsReader } from '../tool-input.ts';

type Id = string | number;
interface Auth {
  token?: string;
}
interface SendArgs extends Auth {
  chatId: Id;
  text: string;
  parseMode?: string;
  disableNotification?: boolean;
  disableWebPagePreview?: boolean;
  replyToMessageId?: Id;
  allowSendingWithoutReply?: boolean;
}
interface EditArgs extends Auth {
  chatId: Id;
  messageId: Id;
  text: string;
  parseMode?: string;
  disableWebPagePreview?: boolean;
}
interface MessageArgs extends Auth {
  chatId: Id;
  messageId: Id;
}
interface ReactArgs extends MessageArgs {
  emoji?: string;
  emojis?: string[];
  clear?: boolean;
  isBig?: boolean;
}
interface ChatActionArgs extends Auth {
  chatId: Id;
  action?: string;
}
interface DownloadArgs extends Auth {
  fileId: string;
  maxBytes?: number;
  savePath?: string;
  includeBase64?: boolean;
}

const read = {
  send: argsReader<SendArgs>(import.meta.dir, 'send'),
  edit: argsReader<EditArgs>(import.meta.dir, 'edit'),
  delete: argsReader<MessageArgs>(import.meta.dir, 'delete'),
  react: argsReader<ReactArgs>(import.meta.dir, 'react'),
  setChatAction: argsReader<ChatActionArgs>(import.meta.dir, 'set_chat_action'),
  downloadFile: argsReader<DownloadArgs>(import.meta.dir, 'download_file'),
};

function target(ctx: ToolContext, token: string | undefined): ChatApiTarget {
  return chatApiTarget(ctx, token, { tool: 'telegram', tokenEnv: ['TELEGRAM_BOT_TOKEN', 'BOT_TOKEN', 'TELEGRAM_TOKEN'], baseUrlEnv: 'TELEGRAM_API_BASE_URL', defaultBaseUrl: TELEGRAM_API_BASE_URL });
}

/** One Bot API method; resolves with its `result`. */
function call(ctx: ToolContext, api: ChatApiTarget, method: string, body: JsonObject): Promise<unknown> {
  return callChatApi(ctx, api, { label: `telegram ${method}`, method: 'POST', url: `${api.baseUrl}/bot${api.token}/${method}`, body }, interpretTelegram);
}

const messageIdOf = (result: unknown): number | null =>
  typeof result === 'object' && result !== null && 'message_id' in result && typeof result.message_id === 'number' ? result.message_id : null;

export const handlers: Record<string, ToolHandler> = {
  send: async (ctx, input) => {
    const args = read.send(input);
    const api = target(ctx, args.token);
    const messageIds: Array<number | null> = [];
    for (const [i, text] of splitMessage(args.text, TELEGRAM_MESSAGE_LIMIT).entries()) {
      const result = await call(ctx, api, 'sendMessage', {
        chat_id: args.chatId,
        text,
        ...(args.parseMode ? { parse_mode: args.parseMode } : {}),
        ...(args.disableNotification ? { disable_notification: true } : {}),
        ...(args.disableWebPagePreview ? { link_preview_options: { is_disabled: true } } : {}),
        ...(i === 0 && args.replyToMessageId !== undefined
          ? { reply_parameters: { message_id: Number(args.replyToMessageId), allow_sending_without_reply: args.allowSendingWithoutReply ?? true } }
          : {}),
      });
      messageIds.push(messageIdOf(result));
    }
    return { ok: true, chatId: String(args.chatId), messageId: messageIds[0] ?? null, messageIds };
  },
  edit: async (ctx, input) => {
    const args = read.edit(input);
    await call(ctx, target(ctx, args.token), 'editMessageText', {
      chat_id: args.chatId,
      message_id: Number(args.messageId),
      text: args.text,
      ...(args.parseMode ? { parse_mode: args.parseMode } : {}),
      ...(args.disableWebPagePreview ? { link_preview_options: { is_disabled: true } } : {}),
    });
    return { ok: true, chatId: String(args.chatId), messageId: Number(args.messageId) };
  },
  delete: async (ctx, input) => {
    const args = read.delete(input);
    await call(ctx, target(ctx, args.token), 'deleteMessage', { chat_id: args.chatId, message_id: Number(args.messageId) });
    return { ok: true, deleted: true, chatId: String(args.chatId), messageId: Number(args.messageId) };
  },
  react: async (ctx, input) => {
    const args = read.react(input);
    const emojis = args.clear ? [] : [...(args.emoji ? [args.emoji] : []), ...(args.emojis ?? [])];
    await call(ctx, target(ctx, args.token), 'setMessageReaction', {
      chat_id: args.chatId,
      message_id: Number(args.messageId),
      reaction: emojis.map((emoji) => ({ type: 'emoji', emoji })),
      ...(args.isBig ? { is_big: true } : {}),
    });
    return { ok: true, chatId: String(args.chatId), messageId: Number(args.messageId), reactions: emojis };
  },
  set_chat_action: async (ctx, input) => {
    const args = read.setChatAction(input);
    const action = (args.action ?? 'typing').replace(/-/g, '_');
    await call(ctx, target(ctx, args.token), 'sendChatAction', { chat_id: args.chatId, action });
    return { ok: true, chatId: String(args.chatId), action };
  },
  download_file: async (ctx, input) => {
    const args = read.downloadFile(input);
    const api = target(ctx, args.token);
    const file = await call(ctx, api, 'getFile', { file_id: args.fileId });
    const filePath = typeof file === 'object' && file !== null && 'file_path' in file && typeof file.file_path === 'string' ? file.file_path : '';
    const saved = await downloadToWorkspace(ctx, {
      url: `${api.baseUrl}/file/bot${api.token}/${filePath}`,
      headers: {},
      label: `telegram download of ${args.fileId}`,
      fileName: filePath.split('/').pop() ?? args.fileId,
      secrets: [api.token],
      ...(args.maxBytes !== undefined ? { maxBytes: args.maxBytes } : {}),
      ...(args.savePath !== undefined ? { savePath: args.savePath } : {}),
      ...(args.includeBase64 !== undefined ? { includeBase64: args.includeBase64 } : {}),
    });
    return { ok: true, fileId: args.fileId, filePath, ...saved };
  },
};
