/**
 * Addresses http-fetch refuses by default: everything that reaches this machine, its local
 * network or a cloud's metadata service rather than the public internet. IPv6 forms that carry an
 * IPv4 address (mapped `::ffff:127.0.0.1`, NAT64, 6to4, IPv4-compatible) are judged by that address.
 */
import { cidrContains, type Cidr, formatIp, type IpAddress, parseCidr } from './ip-address.ts';

export interface PrivateRange {
  /** The matching block, e.g. `127.0.0.0/8`. */
  rule: string;
  /** What the block is, e.g. `loopback`. */
  label: string;
  /** The IPv4 address an IPv6 form carried, when that is what matched. */
  embeddedIpv4?: string;
}

interface RangeRule {
  cidr: Cidr;
  rule: string;
  label: string;
}

function builtInCidr(rule: string): Cidr {
  const cidr = parseCidr(rule);
  if (!cidr) throw new Error(`bad built-in range ${rule}`);
  return cidr;
}

function rules(table: Array<[string, string]>): RangeRule[] {
  return table.map(([rule, label]) => ({ cidr: builtInCidr(rule), rule, label }));
}

const IPV4_RULES = rules([
  ['0.0.0.0/8', 'unspecified ("this host")'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT (shared address space)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata services live at 169.254.169.254)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved (includes the broadcast address 255.255.255.255)'],
]);

const IPV6_RULES = rules([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['fc00::/7', 'unique-local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated, private)'],
  ['ff00::/8', 'multicast'],
]);

/** IPv6 blocks whose addresses embed an IPv4 address, with the byte offset of it. */
const IPV4_CARRIER_TABLE: Array<[string, number]> = [
  ['::ffff:0:0/96', 12], // IPv4-mapped
  ['64:ff9b::/96', 12], // NAT64
  ['::/96', 12], // IPv4-compatible (deprecated)
  ['2002::/16', 2], // 6to4
];
const IPV4_CARRIERS = IPV4_CARRIER_TABLE.map(([rule, offset]) => ({ cidr: builtInCidr(rule), offset }));

/** The non-public range `address` lies in, or undefined for a public address. */
export function privateRangeOf(address: IpAddress): PrivateRange | undefined {
  const table = address.family === 4 ? IPV4_RULES : IPV6_RULES;
  const direct = table.find((entry) => cidrContains(entry.cidr, address));
  if (direct) return { rule: direct.rule, label: direct.label };
  const embedded = embeddedIpv4(address);
  if (!embedded) return undefined;
  const carried = IPV4_RULES.find((entry) => cidrContains(entry.cidr, embedded));
  return carried ? { rule: carried.rule, label: carried.label, embeddedIpv4: formatIp(embedded) } : undefined;
}

/** The IPv4 address inside an IPv4-carrying IPv6 address. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family !== 6) return undefined;
  const carrier = IPV4_CARRIERS.find((entry) => cidrContains(entry.cidr, address));
  return carrier ? { family: 4, bytes: address.bytes.slice(carrier.offset, carrier.offset + 4) } : undefined;
}
