/**
 * `config.allow` of http-fetch: the private targets one agent may reach. An entry is a host name
 * (`intranet.local`; allowing a name trusts whatever it resolves to), a wildcard for subdomains
 * (`*.corp.example`, any depth, not the bare domain), or an address or CIDR block (`127.0.0.1`,
 * `10.0.0.0/8`, `fd00::/8`; an IPv4 block also covers the IPv6 forms that carry its addresses).
 */
import { BaseToolError } from '../tool-error.ts';
import { cidrContains, type Cidr, type IpAddress, parseCidr } from './ip-address.ts';
import { embeddedIpv4 } from './private-ranges.ts';

export interface AllowList {
  hosts: ReadonlySet<string>;
  /** Suffixes with the leading dot: `.corp.example`. */
  domainSuffixes: readonly string[];
  blocks: ReadonlyArray<{ cidr: Cidr; entry: string }>;
  /** The entries as written, for messages. */
  entries: readonly string[];
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const domainSuffixes: string[] = [];
  const blocks: Array<{ cidr: Cidr; entry: string }> = [];
  for (const entry of entries) {
    const text = entry.trim().toLowerCase();
    const cidr = parseCidr(text);
    if (cidr) blocks.push({ cidr, entry });
    else if (text.startsWith('*.') && HOST_NAME.test(text.slice(2))) domainSuffixes.push(text.slice(1));
    else if (HOST_NAME.test(normalHost(text)) && !/^[\d.]+$/.test(text)) hosts.add(normalHost(text));
    else {
      throw new BaseToolError('E_TOOL_CONFIG', `Invalid config for tool "http-fetch": config.allow entry ${JSON.stringify(entry)} is not a host name, *.domain wildcard, IP address or CIDR block.`, {
        suggestion: 'Write entries like "intranet.local", "*.corp.example", "127.0.0.1", "10.0.0.0/8" or "fd00::/8" (IP addresses in canonical form).',
      });
    }
  }
  return { hosts, domainSuffixes, blocks, entries: [...entries] };
}

/** Whether `host` (as in the URL) is allowed to resolve to the private `address`; names the entry that allows it. */
export function allowingEntry(list: AllowList, host: string, address: IpAddress): string | undefined {
  const name = normalHost(host);
  if (list.hosts.has(name)) return name;
  const suffix = list.domainSuffixes.find((candidate) => name.endsWith(candidate));
  if (suffix) return `*${suffix}`;
  const carried = embeddedIpv4(address);
  return list.blocks.find(({ cidr }) => cidrContains(cidr, address) || (carried !== undefined && cidrContains(cidr, carried)))?.entry;
}

/** Lower case, without a trailing dot (`LocalHost.` and `localhost` are one host). */
function normalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}
