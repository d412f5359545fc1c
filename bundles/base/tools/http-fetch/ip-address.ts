/**
 * IPv4 and IPv6 addresses as bytes, and CIDR blocks over them. Input is canonical text: the URL
 * parser has already turned `2130706433`, `0x7f.1` and `017700000001` into `127.0.0.1`, and the
 * resolver returns canonical addresses; config entries must be written canonically too.
 */

export interface IpAddress {
  family: 4 | 6;
  /** 4 bytes for IPv4, 16 for IPv6. */
  bytes: Uint8Array;
}

export interface Cidr {
  base: IpAddress;
  prefix: number;
}

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/** Parses `127.0.0.1`, `::1`, `[::ffff:7f00:1]` (brackets and a `%zone` are ignored). */
export function parseIp(text: string): IpAddress | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const v4 = parseIpv4(bare);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = parseIpv6(bare);
  return v6 ? { family: 6, bytes: v6 } : undefined;
}

function parseIpv4(text: string): Uint8Array | undefined {
  const match = DOTTED_QUAD.exec(text);
  if (!match) return undefined;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? Uint8Array.from(octets) : undefined;
}

function parseIpv6(text: string): Uint8Array | undefined {
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === '') return [];
    const groups: number[] = [];
    const pieces = part.split(':');
    for (const [index, piece] of pieces.entries()) {
      // The last 32 bits may be written as an IPv4 address (`::ffff:127.0.0.1`).
      const v4 = index === pieces.length - 1 ? parseIpv4(piece) : undefined;
      if (v4) groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      else if (HEX_GROUP.test(piece)) groups.push(Number.parseInt(piece, 16));
      else return undefined;
    }
    return groups;
  };
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  for (const [index, group] of groups.entries()) {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  }
  return bytes;
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (longest zero run as `::`, lower case). */
export function formatIp(address: IpAddress): string {
  if (address.family === 4) return Array.from(address.bytes).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((address.bytes[i * 2] ?? 0) << 8) | (address.bytes[i * 2 + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). */
export function parseCidr(text: string): Cidr | undefined {
  const [addressText = '', prefixText, ...rest] = text.split('/');
  if (rest.length > 0) return undefined;
  const base = parseIp(addressText);
  if (!base) return undefined;
  const bits = base.bytes.length * 8;
  if (prefixText === undefined) return { base, prefix: bits };
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix <= bits ? { base, prefix } : undefined;
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.base.family !== address.family) return false;
  const fullBytes = Math.floor(cidr.prefix / 8);
  for (let i = 0; i < fullBytes; i++) if (cidr.base.bytes[i] !== address.bytes[i]) return false;
  const restBits = cidr.prefix % 8;
  if (restBits === 0) return true;
  const mask = (0xff << (8 - restBits)) & 0xff;
  return ((cidr.base.bytes[fullBytes] ?? 0) & mask) === ((address.bytes[fullBytes] ?? 0) & mask);
}
