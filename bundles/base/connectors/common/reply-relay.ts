/**
 * Carries an inbound chat event to the agent and its reply back to the chat. The event is handed
 * to the daemon at once (it is durable from then on); the reply is awaited in the background and
 * posted through the provider's API, one post at a time per conversation so replies keep their
 * order. A post that finally fails is logged — never thrown, never at the cost of later events.
 *
 * Settings: `replies` (true; false = emit only, for agents that answer with tools such as
 * `telegram__send`), `replyTimeoutMs` (600000), `errorReply` (what the chat sees when the turn
 * failed; "" = nothing).
 */
import type { ConnectorContext, ConnectorEvent, ConnectorReply } from '../../../../shared/types/index.ts';
import { flagSetting, numberSetting } from './connector-settings.ts';
import { redact } from './provider-request.ts';

export const DEFAULT_ERROR_REPLY = 'Sorry, something went wrong while answering that.';

export interface ReplyRelay {
  /** Sends the event; `post` is called with the reply text when it arrives. */
  relay(event: ConnectorEvent, post: (text: string) => Promise<void>): void;
  /** Resolves when every reply in flight was posted (or given up). */
  idle(): Promise<void>;
}

export interface ReplyRelayOptions {
  connector: string;
  /** Strings cut out of logged errors (tokens). */
  secrets: readonly string[];
  /** Overrides the `replies` setting (a connector without a token cannot post). */
  replies?: boolean;
}

export function createReplyRelay(ctx: ConnectorContext, options: ReplyRelayOptions): ReplyRelay {
  const { connector } = options;
  const replies = options.replies ?? flagSetting(ctx, ['replies'], true, connector);
  const timeoutMs = numberSetting(ctx, ['replyTimeoutMs'], 600_000, connector, { min: 1, max: 86_400_000 });
  const errorReply = ctx.config.errorReply ?? DEFAULT_ERROR_REPLY;
  const chains = new Map<string, Promise<void>>();
  const inFlight = new Set<Promise<void>>();

  const textFor = (event: ConnectorEvent, reply: ConnectorReply): string => {
    if (reply.status === 'ok') return reply.text.trim();
    ctx.logger.warn({ connector, instanceKey: event.instanceKey, status: reply.status, error: reply.text, traceId: reply.traceId ?? null }, 'the agent did not answer');
    return errorReply.trim();
  };

  const track = (promise: Promise<void>) => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
  };

  return {
    relay(event, post) {
      if (!replies) {
        track(ctx.emit(event).catch((error: unknown) => ctx.logger.error({ connector, error: String(error) }, 'event not delivered')));
        return;
      }
      const reply = ctx.request(event, { timeoutMs });
      // Posts of one conversation run in order; a failed post does not stop the next one.
      const previous = chains.get(event.instanceKey) ?? Promise.resolve();
      const chained = reply.then(async (answer) => {
        await previous;
        const text = textFor(event, answer);
        if (text === '') return;
        await post(text);
      }).catch((error: unknown) => {
        const message = redact(error instanceof Error ? error.message : String(error), options.secrets);
        ctx.logger.error({ connector, instanceKey: event.instanceKey, error: message }, 'reply not posted');
      });
      chains.set(event.instanceKey, chained);
      track(chained);
      void chained.finally(() => {
        if (chains.get(event.instanceKey) === chained) chains.delete(event.instanceKey);
      });
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
