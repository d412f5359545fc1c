/**
 * Sandbox tests need a working bubblewrap: install it when missing (Debian `bubblewrap`), and fail
 * loudly — never skip — when it still cannot create its namespaces here.
 */
import { bwrapAvailability } from '../../bundles/base/sandbox/bwrap-availability.ts';

let checked: string | undefined;

/** The bwrap binary of this host; throws when there is none that works. */
export function requireBwrap(): string {
  if (checked !== undefined) return checked;
  if (Bun.which('bwrap') === null) {
    const install = Bun.spawnSync(['sh', '-c', 'command -v apt-get >/dev/null && (apt-get install -y bubblewrap || (apt-get update && apt-get install -y bubblewrap))'], {
      stdout: 'inherit',
      stderr: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (install.exitCode !== 0) throw new Error('these tests need bubblewrap: `apt-get install -y bubblewrap` failed or apt-get is missing; install bwrap and run again');
  }
  // The test's own environment, minus an override meant for one test.
  const { GOONDAN_BWRAP_PATH: _ignored, ...env } = process.env;
  const availability = bwrapAvailability(env);
  if (!availability.ok) throw new Error(`these tests need a working bubblewrap: ${availability.reason}`);
  checked = availability.path;
  return checked;
}
