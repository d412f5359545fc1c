/**
 * Where one request hop may go (SSRF guard): the URL's host is resolved once, every address it
 * resolves to must be public or allowed by `config.allow`, and the request is then sent to the
 * checked address itself (see `pinnedRequest`), so a DNS answer that changes between the check
 * and the connection (DNS rebinding) cannot redirect it.
 */
import { abortedError, BaseToolError, describeError, systemErrorCode } from '../tool-error.ts';
import { type AllowList, allowingEntry } from './allow-list.ts';
import { formatIp, type IpAddress, parseIp } from './ip-address.ts';
import { privateRangeOf } from './private-ranges.ts';

export type HostResolver = (host: string) => Promise<ReadonlyArray<{ address: string }>>;

/** node:dns is loaded by the first lookup: the agent bundle includes this module, and most agents never send HTTP. */
export const systemResolver: HostResolver = async (host) => (await import('node:dns/promises')).lookup(host, { all: true, verbatim: true });

export interface TargetCheck {
  allow: AllowList;
  resolve: HostResolver;
  signal: AbortSignal;
}

/**
 * The addresses `url` may be sent to, in resolver order (all of them checked), or
 * `E_HTTP_PRIVATE_TARGET` / `E_HTTP_DNS`. `what` names the request in messages.
 */
export async function checkTarget(url: URL, check: TargetCheck, what: string): Promise<IpAddress[]> {
  const host = url.hostname;
  const literal = parseIp(host);
  const addresses = literal ? [literal] : await resolveHost(host, check);
  for (const address of addresses) {
    const range = privateRangeOf(address);
    if (range === undefined || allowingEntry(check.allow, host, address) !== undefined) continue;
    const shown = formatIp(address);
    const carried = range.embeddedIpv4 ? ` (it carries the IPv4 address ${range.embeddedIpv4})` : '';
    const where = literal ? `the address ${shown}${carried} is` : `the host "${host}" resolves to ${shown}${carried}, which is`;
    throw new BaseToolError('E_HTTP_PRIVATE_TARGET', `Refused ${what} ${url.href}: ${where} a ${range.label} address (${range.rule}). Private, loopback and link-local targets are refused by default.`, {
      suggestion: `If this agent must reach it, add "${literal ? shown : host}" (or a CIDR block such as "${shown}") to config.allow on the agent's tool ref (tools: [{ ref: Tool/http-fetch, config: { allow: [...] } }]); http-fetch__get then counts as not read-only for the permission policy.`,
      details: { url: url.href, host, address: shown, rule: range.rule, range: range.label },
    });
  }
  if (addresses.length === 0) throw dnsError(host, 'no addresses');
  return addresses;
}

async function resolveHost(host: string, check: TargetCheck): Promise<IpAddress[]> {
  if (check.signal.aborted) throw abortedError('The request');
  let answers: ReadonlyArray<{ address: string }>;
  try {
    answers = await untilAborted(check.resolve(host), check.signal);
  } catch (error) {
    if (check.signal.aborted) throw error;
    throw dnsError(host, systemErrorCode(error) ?? describeError(error));
  }
  return answers.flatMap((answer) => {
    const address = parseIp(answer.address);
    return address ? [address] : [];
  });
}

/** `promise`, or a rejection as soon as `signal` aborts: the resolver itself cannot be cancelled. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function dnsError(host: string, reason: string): BaseToolError {
  return new BaseToolError('E_HTTP_DNS', `Could not resolve the host "${host}" (${reason}).`, {
    suggestion: 'Check the spelling of the host name, and that it exists in public DNS.',
    details: { host },
  });
}

export interface PinnedRequest {
  /** The URL with its host replaced by the checked address (unchanged when it already was one). */
  url: URL;
  /** `Host` header: the original host and port, so virtual hosting still works. */
  hostHeader: string;
  /** TLS server name (SNI and certificate check) for https to a host name. */
  serverName?: string;
}

/** The request as sent: to `address`, presenting the original host name in `Host` and TLS. */
export function pinnedRequest(url: URL, address: IpAddress): PinnedRequest {
  if (parseIp(url.hostname)) return { url, hostHeader: url.host };
  const pinned = new URL(url.href);
  pinned.hostname = address.family === 6 ? `[${formatIp(address)}]` : formatIp(address);
  const request: PinnedRequest = { url: pinned, hostHeader: url.host };
  if (url.protocol === 'https:') request.serverName = url.hostname.replace(/\.$/, '');
  return request;
}
