/**
 * Reads a connector setting from the Connection: `config` first, then `secrets` (both are
 * ValueSources resolved by the daemon, so a token may live in either), under its own name or
 * the upstream alias names real bundles use (e.g. `TELEGRAM_BOT_TOKEN`, `SLACK_WEBHOOK_PORT`).
 */
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { ConnectorError } from './connector-error.ts';

export type SettingsSource = Pick<ConnectorContext, 'config' | 'secrets'>;

export function setting(source: SettingsSource, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = source.config[name] ?? source.secrets[name];
    if (value !== undefined && value.trim() !== '') return value.trim();
  }
  return undefined;
}

export function requiredSetting(source: SettingsSource, names: readonly string[], connector: string, what: string): string {
  const value = setting(source, names);
  if (value !== undefined) return value;
  const [first, ...aliases] = names;
  throw new ConnectorError('E_CONNECTOR_CONFIG', `${connector} connector: missing ${what}`, `set config.${first} or secrets.${first}${aliases.length > 0 ? ` (also read: ${aliases.join(', ')})` : ''} on the Connection`);
}

export function numberSetting(source: SettingsSource, names: readonly string[], fallback: number, connector: string, range: { min: number; max: number }): number {
  const text = setting(source, names);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < range.min || value > range.max) {
    throw new ConnectorError('E_CONNECTOR_CONFIG', `${connector} connector: ${names[0]} is "${text}"`, `use a number from ${range.min} to ${range.max}`);
  }
  return value;
}

const TRUE = new Set(['true', 'on', 'yes', '1']);
const FALSE = new Set(['false', 'off', 'no', '0']);

export function flagSetting(source: SettingsSource, names: readonly string[], fallback: boolean, connector: string): boolean {
  const text = setting(source, names)?.toLowerCase();
  if (text === undefined) return fallback;
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw new ConnectorError('E_CONNECTOR_CONFIG', `${connector} connector: ${names[0]} is "${text}"`, 'use true or false (on/off)');
}

/** A provider base URL without the trailing slash; a bad URL fails the start, not the first reply. */
export function baseUrlSetting(source: SettingsSource, names: readonly string[], fallback: string, connector: string): string {
  const text = setting(source, names) ?? fallback;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConnectorError('E_CONNECTOR_CONFIG', `${connector} connector: ${names[0]} "${text}" is not a URL`, `e.g. ${fallback}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConnectorError('E_CONNECTOR_CONFIG', `${connector} connector: ${names[0]} must be http(s), got ${url.protocol}`, `e.g. ${fallback}`);
  }
  return text.replace(/\/+$/, '');
}
