/**
 * `slack__*`: a Slack bot's actions through the Web API (https://api.slack.com/methods) — send,
 * read, edit, delete, react, download_file (upstream's downloadFile; export names are lowercase,
 * tool spec §6.2) — with the bot token as a Bearer credential. Calls are retried on rate limits,
 * 5xx and network errors (bounded); a final failure is `E_SLACK_API` with Slack's error code
 * (`channel_not_found`, `not_in_channel`, …).
 */
import type { JsonObject, ToolContext, ToolHandler } from '../../../../shared/types/index.ts';
import { isRecord, textAt } from '../../connectors/common/payload-fields.ts';
import { SLACK_API_BASE_URL, interpretSlack } from '../../connectors/slack/slack-api.ts';
import { type ChatApiTarget, callChatApi, chatApiTarget } from '../chat-api-client.ts';
import { downloadToWorkspace } from '../chat-file-download.ts';
import { argsReader } from '../tool-input.ts';
import { BaseToolError } from '../tool-error.ts';

interface Auth {
  token?: string;
}
interface SendArgs extends Auth {
  channelId: string;
  text: string;
  threadTs?: string;
  mrkdwn?: boolean;
  unfurlLinks?: boolean;
  unfurlMedia?: boolean;
  replyBroadcast?: boolean;
}
interface ReadArgs extends Auth {
  channelId: string;
  threadTs?: string;
  messageTs?: string;
  latest?: string;
  oldest?: string;
  inclusive?: boolean;
  limit?: number;
  cursor?: string;
}
interface MessageArgs extends Auth {
  channelId: string;
  messageTs: string;
}
interface EditArgs extends MessageArgs {
  text: string;
  mrkdwn?: boolean;
}
interface ReactArgs extends MessageArgs {
  emoji?: string;
  emojis?: string[];
}
interface DownloadArgs extends Auth {
  url: string;
  maxBytes?: number;
  savePath?: string;
  includeBase64?: boolean;
}

const read = {
  send: argsReader<SendArgs>(import.meta.dir, 'send'),
  read: argsReader<ReadArgs>(import.meta.dir, 'read'),
  edit: argsReader<EditArgs>(import.meta.dir, 'edit'),
  delete: argsReader<MessageArgs>(import.meta.dir, 'delete'),
  react: argsReader<ReactArgs>(import.meta.dir, 'react'),
  downloadFile: argsReader<DownloadArgs>(import.meta.dir, 'download_file'),
};

function target(ctx: ToolContext, token: string | undefined): ChatApiTarget {
  return chatApiTarget(ctx, token, { tool: 'slack', tokenEnv: ['SLACK_BOT_TOKEN', 'SLACK_TOKEN'], baseUrlEnv: 'SLACK_API_BASE_URL', defaultBaseUrl: SLACK_API_BASE_URL });
}

/** One Web API method (JSON body); resolves with Slack's answer. */
function call(ctx: ToolContext, api: ChatApiTarget, method: string, body: JsonObject): Promise<unknown> {
  return callChatApi(ctx, api, { label: `slack ${method}`, method: 'POST', url: `${api.baseUrl}/${method}`, headers: { authorization: `Bearer ${api.token}` }, body }, interpretSlack);
}

function messagesOf(answer: unknown): JsonObject[] {
  const messages = isRecord(answer) && Array.isArray(answer.messages) ? answer.messages : [];
  return messages.filter(isRecord).map((m) => ({
    ts: textAt(m, 'ts') ?? null,
    user: textAt(m, 'user') ?? textAt(m, 'bot_id') ?? null,
    text: textAt(m, 'text') ?? '',
    threadTs: textAt(m, 'thread_ts') ?? null,
  }));
}

/** Only Slack's own file hosts (or the configured API's host) ever receive the bot token. */
function checkSlackFileUrl(url: string, api: ChatApiTarget): void {
  let host = '';
  try {
    host = new URL(url).host;
  } catch {
    throw new BaseToolError('E_TOOL_INVALID_ARGS', `url "${url}" is not a URL`);
  }
  if (host === 'slack.com' || host.endsWith('.slack.com') || host === new URL(api.baseUrl).host) return;
  throw new BaseToolError('E_TOOL_INVALID_ARGS', `url host ${host} is not Slack's; the bot token is only sent to *.slack.com`, { suggestion: 'pass the file\'s url_private from the Slack event' });
}

export const handlers: Record<string, ToolHandler> = {
  send: async (ctx, input) => {
    const args = read.send(input);
    const answer = await call(ctx, target(ctx, args.token), 'chat.postMessage', {
      channel: args.channelId,
      text: args.text,
      ...(args.threadTs ? { thread_ts: args.threadTs } : {}),
      ...(args.mrkdwn !== undefined ? { mrkdwn: args.mrkdwn } : {}),
      ...(args.unfurlLinks !== undefined ? { unfurl_links: args.unfurlLinks } : {}),
      ...(args.unfurlMedia !== undefined ? { unfurl_media: args.unfurlMedia } : {}),
      ...(args.replyBroadcast ? { reply_broadcast: true } : {}),
    });
    return { ok: true, channelId: textAt(answer, 'channel') ?? args.channelId, ts: textAt(answer, 'ts') ?? null, threadTs: args.threadTs ?? null };
  },
  read: async (ctx, input) => {
    const args = read.read(input);
    const single = args.messageTs !== undefined && args.threadTs === undefined;
    const answer = await call(ctx, target(ctx, args.token), args.threadTs ? 'conversations.replies' : 'conversations.history', {
      channel: args.channelId,
      ...(args.threadTs ? { ts: args.threadTs } : {}),
      ...(single ? { latest: args.messageTs, oldest: args.messageTs, inclusive: true, limit: 1 } : {}),
      ...(!single && args.latest ? { latest: args.latest } : {}),
      ...(!single && args.oldest ? { oldest: args.oldest } : {}),
      ...(!single && args.inclusive !== undefined ? { inclusive: args.inclusive } : {}),
      ...(!single ? { limit: args.limit ?? 20 } : {}),
      ...(args.cursor ? { cursor: args.cursor } : {}),
    });
    const next = isRecord(answer) ? textAt(answer.response_metadata, 'next_cursor') : undefined;
    return { ok: true, channelId: args.channelId, messages: messagesOf(answer), nextCursor: next ?? null };
  },
  edit: async (ctx, input) => {
    const args = read.edit(input);
    await call(ctx, target(ctx, args.token), 'chat.update', { channel: args.channelId, ts: args.messageTs, text: args.text, ...(args.mrkdwn !== undefined ? { mrkdwn: args.mrkdwn } : {}) });
    return { ok: true, channelId: args.channelId, ts: args.messageTs };
  },
  delete: async (ctx, input) => {
    const args = read.delete(input);
    await call(ctx, target(ctx, args.token), 'chat.delete', { channel: args.channelId, ts: args.messageTs });
    return { ok: true, deleted: true, channelId: args.channelId, ts: args.messageTs };
  },
  react: async (ctx, input) => {
    const args = read.react(input);
    const names = [...(args.emoji ? [args.emoji] : []), ...(args.emojis ?? [])].map((name) => name.replace(/^:|:$/g, ''));
    if (names.length === 0) throw new BaseToolError('E_TOOL_INVALID_ARGS', 'give emoji or emojis', { suggestion: 'e.g. emoji: "thumbsup"' });
    const api = target(ctx, args.token);
    for (const name of names) await call(ctx, api, 'reactions.add', { channel: args.channelId, timestamp: args.messageTs, name });
    return { ok: true, channelId: args.channelId, ts: args.messageTs, reactions: names };
  },
  download_file: async (ctx, input) => {
    const args = read.downloadFile(input);
    const api = target(ctx, args.token);
    checkSlackFileUrl(args.url, api);
    const saved = await downloadToWorkspace(ctx, {
      url: args.url,
      headers: { authorization: `Bearer ${api.token}` },
      label: 'slack file download',
      fileName: new URL(args.url).pathname.split('/').pop() ?? 'file',
      secrets: [api.token],
      ...(args.maxBytes !== undefined ? { maxBytes: args.maxBytes } : {}),
      ...(args.savePath !== undefined ? { savePath: args.savePath } : {}),
      ...(args.includeBase64 !== undefined ? { includeBase64: args.includeBase64 } : {}),
    });
    return { ok: true, url: args.url, ...saved };
  },
};
