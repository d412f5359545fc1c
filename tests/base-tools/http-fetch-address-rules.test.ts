/**
 * The address classifier, the allow list and the target check of http-fetch, without connecting
 * anywhere: the resolver is a function returning fixed answers, so no private address other than
 * loopback ever sees a packet from these tests.
 */
import { describe, expect, test } from 'bun:test';
import { allowingEntry, parseAllowList } from '../../bundles/base/tools/http-fetch/allow-list.ts';
import { cidrContains, formatIp, parseCidr, parseIp } from '../../bundles/base/tools/http-fetch/ip-address.ts';
import { privateRangeOf } from '../../bundles/base/tools/http-fetch/private-ranges.ts';
import { checkTarget, pinnedRequest } from '../../bundles/base/tools/http-fetch/target-check.ts';
import { toolError } from './tool-context.ts';

const ip = (text: string) => {
  const address = parseIp(text);
  if (!address) throw new Error(`test address ${text} does not parse`);
  return address;
};

describe('addresses parse and print canonically', () => {
  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['fe80::1%eth0', 'fe80::1'],
  ])('%s → %s', (text, canonical) => {
    expect(formatIp(ip(text))).toBe(canonical);
  });

  test.each(['256.0.0.1', '1.2.3', '1::2::3', '1:2:3:4:5:6:7:8:9', 'example.com', '12345::', ''])('%s is not an address', (text) => {
    expect(parseIp(text)).toBeUndefined();
  });

  test('CIDR blocks contain exactly their addresses', () => {
    const block = parseCidr('172.16.0.0/12');
    expect(block && cidrContains(block, ip('172.31.255.255'))).toBe(true);
    expect(block && cidrContains(block, ip('172.32.0.0'))).toBe(false);
    expect(block && cidrContains(block, ip('::ffff:172.16.0.1'))).toBe(false); // other family
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('fd00::/8')?.prefix).toBe(8);
  });
});

describe('non-public addresses are classified with their rule', () => {
  test.each([
    ['127.0.0.1', '127.0.0.0/8'],
    ['127.255.255.254', '127.0.0.0/8'],
    ['10.1.2.3', '10.0.0.0/8'],
    ['172.16.0.1', '172.16.0.0/12'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['100.64.0.1', '100.64.0.0/10'],
    ['169.254.169.254', '169.254.0.0/16'],
    ['0.0.0.0', '0.0.0.0/8'],
    ['224.0.0.1', '224.0.0.0/4'],
    ['255.255.255.255', '240.0.0.0/4'],
    ['::1', '::1/128'],
    ['::', '::/128'],
    ['fe80::1', 'fe80::/10'],
    ['fd00::1', 'fc00::/7'],
    ['fd00:ec2::254', 'fc00::/7'],
    ['ff02::1', 'ff00::/8'],
    ['::ffff:127.0.0.1', '127.0.0.0/8'],
    ['::ffff:169.254.169.254', '169.254.0.0/16'],
    ['64:ff9b::10.0.0.1', '10.0.0.0/8'],
    ['2002:7f00:1::', '127.0.0.0/8'],
    ['::127.0.0.1', '127.0.0.0/8'],
  ])('%s is in %s', (text, rule) => {
    expect(privateRangeOf(ip(text))?.rule).toBe(rule);
  });

  test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '2002:808:808::'])('%s is public', (text) => {
    expect(privateRangeOf(ip(text))).toBeUndefined();
  });
});

describe('config.allow entries', () => {
  const list = parseAllowList(['intranet.local', '*.corp.example', '10.0.0.0/8', '127.0.0.1', 'fd00::/8']);

  test('a host name allows what it resolves to; a trailing dot and case do not matter', () => {
    expect(allowingEntry(list, 'intranet.local', ip('192.168.1.5'))).toBe('intranet.local');
    expect(allowingEntry(list, 'Intranet.Local.', ip('192.168.1.5'))).toBe('intranet.local');
  });

  test('a wildcard allows subdomains at any depth, not the bare domain', () => {
    expect(allowingEntry(list, 'a.b.corp.example', ip('192.168.1.5'))).toBe('*.corp.example');
    expect(allowingEntry(list, 'corp.example', ip('192.168.1.5'))).toBeUndefined();
    expect(allowingEntry(list, 'evilcorp.example', ip('192.168.1.5'))).toBeUndefined();
  });

  test('addresses and CIDR blocks allow by resolved address, also in IPv4-carrying IPv6 form', () => {
    expect(allowingEntry(list, 'anything', ip('10.9.9.9'))).toBe('10.0.0.0/8');
    expect(allowingEntry(list, 'anything', ip('::ffff:10.9.9.9'))).toBe('10.0.0.0/8');
    expect(allowingEntry(list, 'anything', ip('fd12::1'))).toBe('fd00::/8');
    expect(allowingEntry(list, 'anything', ip('127.0.0.2'))).toBeUndefined();
  });

  test.each(['10.0.0.0/99', '127.1', 'http://x', 'a b', '*.', '*'])('%s is E_TOOL_CONFIG', async (entry) => {
    const error = await toolError(Promise.resolve().then(() => parseAllowList([entry])));
    expect(error.code).toBe('E_TOOL_CONFIG');
    expect(error.message).toContain(JSON.stringify(entry));
  });
});

describe('checkTarget resolves once and refuses any private answer', () => {
  const check = (answers: string[], allow: string[] = []) => ({
    allow: parseAllowList(allow),
    resolve: async () => answers.map((address) => ({ address })),
    signal: new AbortController().signal,
  });

  test('cloud metadata by name: the error names host, address, rule and what to do', async () => {
    const error = await toolError(checkTarget(new URL('http://metadata.google.internal/computeMetadata/v1/'), check(['169.254.169.254']), 'GET'));
    expect(error.code).toBe('E_HTTP_PRIVATE_TARGET');
    expect(error.message).toContain('the host "metadata.google.internal" resolves to 169.254.169.254');
    expect(error.message).toContain('link-local');
    expect(error.suggestion).toContain('add "metadata.google.internal"');
    expect(error.suggestion).toContain("config.allow on the agent's tool ref");
  });

  test.each(['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://[fd00::1]/', 'http://100.64.0.1/', 'http://[fe80::1]/', 'http://224.0.0.1/', 'http://255.255.255.255/'])(
    'the literal %s is refused without asking the resolver',
    async (url) => {
      let asked = false;
      const target = { ...check([]), resolve: async () => ((asked = true), []) };
      expect((await toolError(checkTarget(new URL(url), target, 'GET'))).code).toBe('E_HTTP_PRIVATE_TARGET');
      expect(asked).toBe(false);
    },
  );

  test('one private address among public ones is enough to refuse', async () => {
    expect((await toolError(checkTarget(new URL('http://rebind.example/'), check(['8.8.8.8', '10.0.0.5']), 'GET'))).message).toContain('10.0.0.5');
  });

  test('public answers pass and come back in resolver order', async () => {
    expect((await checkTarget(new URL('http://example.com/'), check(['93.184.216.34', '2606:2800:220:1::1']), 'GET')).map(formatIp)).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
  });

  test('a name that does not resolve is E_HTTP_DNS', async () => {
    const failing = { ...check([]), resolve: async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })) };
    const error = await toolError(checkTarget(new URL('http://nowhere.invalid/'), failing, 'GET'));
    expect(error.code).toBe('E_HTTP_DNS');
    expect(error.message).toContain('ENOTFOUND');
  });
});

describe('pinnedRequest sends to the checked address but presents the original name', () => {
  test('http: the host is replaced by the address and Host keeps name and port', () => {
    const pinned = pinnedRequest(new URL('http://example.com:8080/a?b=1'), ip('93.184.216.34'));
    expect(pinned).toEqual({ url: new URL('http://93.184.216.34:8080/a?b=1'), hostHeader: 'example.com:8080' });
  });

  test('https: the TLS server name (SNI and certificate check) is the original name', () => {
    const pinned = pinnedRequest(new URL('https://example.com./x'), ip('2606:2800:220:1::1'));
    expect(pinned.url.href).toBe('https://[2606:2800:220:1::1]/x');
    expect(pinned.hostHeader).toBe('example.com.');
    expect(pinned.serverName).toBe('example.com');
  });

  test('a URL that already names an address is sent unchanged', () => {
    const url = new URL('https://93.184.216.34/x');
    expect(pinnedRequest(url, ip('93.184.216.34'))).toEqual({ url, hostHeader: '93.184.216.34' });
  });
});
