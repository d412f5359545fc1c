/**
 * A test that needs a system program installs it (apt-get) or fails with what to do; it never
 * skips silently. `.ci/run` installs the same programs up front.
 */
export function requireSystemTool(binary: string, aptPackage: string): string {
  const found = Bun.which(binary);
  if (found) return found;
  const install = Bun.spawnSync(['apt-get', 'install', '-y', '--no-install-recommends', aptPackage], { stdout: 'pipe', stderr: 'pipe' });
  const installed = Bun.which(binary);
  if (installed) return installed;
  throw new Error(`${binary} is needed and could not be installed (apt-get install -y ${aptPackage} exited ${install.exitCode}: ${install.stderr.toString().trim().slice(-300)}); install it and run the test again`);
}
