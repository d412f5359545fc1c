/**
 * A test that needs a system program installs it (apt-get) or fails with what to do; it never
 * skips silently. `.ci/run` installs the same programs up front.
 */

// Debian puts daemons (nats-server) in /usr/sbin, which a non-root PATH often lacks.
const SBIN_PATH = '/usr/local/sbin:/usr/sbin:/sbin';

function findTool(binary: string): string | null {
  return Bun.which(binary) ?? Bun.which(binary, { PATH: SBIN_PATH });
}

export function requireSystemTool(binary: string, aptPackage: string): string {
  const found = findTool(binary);
  if (found) return found;
  // As .ci/run does: sudo when not root, and `apt-get update` only when the package lists are stale.
  const install = Bun.spawnSync(
    [
      'sh',
      '-c',
      'sudo=""; if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo="sudo -n"; fi; ' +
        '$sudo apt-get install -y --no-install-recommends "$1" || { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "$1"; }',
      'install',
      aptPackage,
    ],
    { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
  );
  const installed = findTool(binary);
  if (installed) return installed;
  throw new Error(`${binary} is needed and could not be installed (apt-get install -y ${aptPackage} exited ${install.exitCode}: ${install.stderr.toString().trim().slice(-300)}); install it and run the test again`);
}
