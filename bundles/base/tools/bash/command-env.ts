/**
 * The environment a command sees, built explicitly instead of inheriting the agent process's:
 *
 *   1. a minimal inherited set — PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TERM, TZ,
 *      TMPDIR/TMP/TEMP — taken from the agent process when present;
 *   2. the names listed in `config.inheritEnv` (exact names, or prefixes ending in `*`);
 *   3. `config.env` (fixed values for every command);
 *   4. the call's `env` argument.
 *
 * Inside the sandbox (`sandboxHome` set) HOME is the workspace and TMPDIR/TMP/TEMP are not taken
 * from the agent (the host's directories are not there; /tmp is the sandbox's own), unless the
 * config or the call sets them.
 *
 * Later layers win. A prefix pattern never pulls in `GOONDAN_*` variables or names that look like
 * credentials (`*_API_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, …); such a variable reaches a
 * command only when an operator names it exactly in `inheritEnv` or sets it in `config.env`.
 */

const BASE_NAMES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'TMPDIR', 'TMP', 'TEMP'];
const BASE_PREFIXES = ['LC_'];
const HOST_ONLY_NAMES = new Set(['HOME', 'TMPDIR', 'TMP', 'TEMP']);
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const SECRET_LOOKING = /^GOONDAN_|API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY|(^|_)AUTH(_|$)|AUTHORIZATION/i;

export function looksSecret(name: string): boolean {
  return SECRET_LOOKING.test(name);
}

export interface CommandEnvInput {
  /** The agent process environment (normally `process.env`). */
  parent: Record<string, string | undefined>;
  inheritEnv: readonly string[];
  configEnv: Readonly<Record<string, string>>;
  callEnv: Readonly<Record<string, string>>;
  /** Set when the command runs sandboxed: HOME inside the sandbox (the workspace). */
  sandboxHome?: string;
}

export function buildCommandEnv(input: CommandEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  const exact = new Set([...BASE_NAMES, ...input.inheritEnv.filter((name) => !name.endsWith('*'))]);
  const prefixes = input.inheritEnv.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));
  for (const [name, value] of Object.entries(input.parent)) {
    if (value === undefined) continue;
    const byPrefix =
      BASE_PREFIXES.some((prefix) => name.startsWith(prefix)) ||
      (prefixes.some((prefix) => name.startsWith(prefix)) && !looksSecret(name));
    if (input.sandboxHome !== undefined && HOST_ONLY_NAMES.has(name)) continue;
    if (exact.has(name) || byPrefix) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  if (input.sandboxHome !== undefined) env.HOME = input.sandboxHome;
  Object.assign(env, input.configEnv, input.callEnv);
  return env;
}
