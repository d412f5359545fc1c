/**
 * `goondan studio --help` tells how to reach a daemon on a server through an ssh tunnel: the
 * tunnel lives as long as the ssh session, so the recipe keeps the session open and runs
 * `goondan studio` in it, never as ssh's command (which ends the session, and the tunnel, at once).
 */
import { expect, test } from 'bun:test';
import { goondan } from './goondan-cli.ts';

test('the ssh recipe keeps the tunnel open while the link is used', async () => {
  const run = await goondan(['studio', '--help']);
  expect(run.code).toBe(0);
  const help = run.stdout.replace(/\s+/g, ' ');
  expect(help).not.toMatch(/ssh -L \S+ HOST goondan/);
  expect(help).toContain("'ssh -L 7420:127.0.0.1:7420 HOST' and keep that session open (it carries the tunnel); run 'goondan studio' in it");
});
