/** `telegram-polling`: the upstream connector name, kept so upstream bundles run unchanged. */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { runTelegram } from '../telegram/index.ts';

export default async function telegramPolling(ctx: ConnectorContext): Promise<void> {
  await runTelegram(ctx, 'polling');
}
