/**
 * A Slack Events API `event_callback` → `app_mention` (the bot was @-mentioned in a channel) or
 * `message_im` (a direct message). Messages from bots (including this one), edits and other
 * subtypes, and channel messages without a mention are not events. Properties: `channel`,
 * `thread_ts` (the thread the reply goes to: the message's thread, else the message itself),
 * `ts`, `user`, `team`, `text`, `event_id`, plus the upstream names `channel_id` and `user_id`.
 */
import type { ConnectorEvent } from '../../../../shared/types/index.ts';
import { definedProperties, recordAt, textAt, type JsonRecord } from '../common/payload-fields.ts';

export function slackEvent(envelope: JsonRecord): ConnectorEvent | undefined {
  const event = recordAt(envelope, 'event');
  const type = textAt(event, 'type');
  if (!event || (type !== 'app_mention' && type !== 'message')) return undefined;
  if (textAt(event, 'bot_id') !== undefined || textAt(event, 'subtype') !== undefined) return undefined;
  if (type === 'message' && textAt(event, 'channel_type') !== 'im') return undefined;
  const channel = textAt(event, 'channel');
  const ts = textAt(event, 'ts');
  if (channel === undefined || ts === undefined) return undefined;
  const threadTs = textAt(event, 'thread_ts') ?? ts;
  const text = textAt(event, 'text') ?? '';
  const user = textAt(event, 'user');
  return {
    name: type === 'app_mention' ? 'app_mention' : 'message_im',
    message: { type: 'text', text },
    instanceKey: `slack:${channel}:${threadTs}`,
    properties: definedProperties({
      channel,
      channel_id: channel,
      thread_ts: threadTs,
      ts,
      user,
      user_id: user,
      team: textAt(event, 'team') ?? textAt(envelope, 'team_id'),
      text,
      event_id: textAt(envelope, 'event_id'),
    }),
  };
}
