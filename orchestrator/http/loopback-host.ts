/**
 * Loopback names, and the Host check that keeps a loopback daemon from answering a web page by DNS
 * rebinding: a page of attacker.example whose name now resolves to 127.0.0.1 reaches the daemon
 * from the browser, same-origin, with `Host: attacker.example`. It could read what needs no token
 * (/metrics: agent names and instance keys such as chat ids) and try the rest.
 */

/** A name or address of this machine's loopback interface (as a listen host or in a Host header). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The Host a request to a loopback daemon names when it is not a loopback one; undefined when it is fine. */
export function foreignHost(request: Request, listenHost: string): string | undefined {
  if (!isLoopbackHost(listenHost)) return undefined;
  const header = request.headers.get('host');
  // HTTP/1.0 without a Host header: not a browser.
  if (header === null || header === '') return undefined;
  const name = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.replace(/:\d+$/, '');
  return isLoopbackHost(name) ? undefined : name;
}
