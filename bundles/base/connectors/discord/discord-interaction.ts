/**
 * A Discord interaction → what the connector does with it: answer a PING, or turn a slash
 * command (`slash_command`) or a button/select press (`component_interaction`) into an event on
 * `discord:<channel_id>`. Properties: `channel_id`, `guild_id`, `user_id`, `username`,
 * `interaction_id`, `application_id`, `command` (also `command_name`), `custom_id`, `text`. The
 * interaction token is kept for the follow-up and never put in the event (it is a credential).
 */
import type { ConnectorEvent } from '../../../../shared/types/index.ts';
import { definedProperties, isRecord, numberAt, recordAt, textAt, type JsonRecord } from '../common/payload-fields.ts';

export const INTERACTION_PING = 1;
export const INTERACTION_APPLICATION_COMMAND = 2;
export const INTERACTION_MESSAGE_COMPONENT = 3;

export type Interaction =
  | { kind: 'ping' }
  | { kind: 'event'; event: ConnectorEvent; applicationId: string; token: string }
  | { kind: 'unsupported'; reason: string };

/** The text of a slash command: its option values, else `/<name>`. */
function commandText(data: JsonRecord | undefined): string {
  const options = data && Array.isArray(data.options) ? data.options : [];
  const values = options.flatMap((option) => {
    const value = isRecord(option) ? option.value : undefined;
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? [String(value)] : [];
  });
  return values.length > 0 ? values.join(' ') : `/${textAt(data, 'name') ?? ''}`;
}

export function readInteraction(body: JsonRecord): Interaction {
  const type = numberAt(body, 'type');
  if (type === INTERACTION_PING) return { kind: 'ping' };
  if (type !== INTERACTION_APPLICATION_COMMAND && type !== INTERACTION_MESSAGE_COMPONENT) return { kind: 'unsupported', reason: `interaction type ${type ?? 'missing'} is not handled` };
  const applicationId = textAt(body, 'application_id');
  const token = textAt(body, 'token');
  if (applicationId === undefined || token === undefined) return { kind: 'unsupported', reason: 'interaction without application_id or token' };
  const data = recordAt(body, 'data');
  const user = recordAt(body, 'user') ?? recordAt(recordAt(body, 'member'), 'user');
  const channelId = textAt(body, 'channel_id') ?? textAt(recordAt(body, 'channel'), 'id');
  const userId = textAt(user, 'id');
  const command = type === INTERACTION_APPLICATION_COMMAND ? textAt(data, 'name') : undefined;
  const customId = type === INTERACTION_MESSAGE_COMPONENT ? textAt(data, 'custom_id') : undefined;
  const text = type === INTERACTION_APPLICATION_COMMAND ? commandText(data) : (customId ?? '');
  return {
    kind: 'event',
    applicationId,
    token,
    event: {
      name: type === INTERACTION_APPLICATION_COMMAND ? 'slash_command' : 'component_interaction',
      message: { type: 'text', text },
      instanceKey: `discord:${channelId ?? `user-${userId ?? 'unknown'}`}`,
      properties: definedProperties({
        interaction_id: textAt(body, 'id'),
        application_id: applicationId,
        channel_id: channelId,
        guild_id: textAt(body, 'guild_id'),
        user_id: userId,
        username: textAt(user, 'username'),
        command,
        command_name: command,
        custom_id: customId,
        text,
      }),
    },
  };
}
