/** The API port: `--port` > `$GOONDAN_PORT` > 7420 (ARCHITECTURE §6); 0 picks a free port. */
import { UsageError } from './command.ts';

export const DEFAULT_PORT = 7420;

export function resolveApiPort(flag: string | undefined, env: Record<string, string | undefined> = process.env): number {
  const [raw, source] = flag !== undefined ? [flag, '--port'] : env.GOONDAN_PORT ? [env.GOONDAN_PORT, 'GOONDAN_PORT'] : [undefined, ''];
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${source} must be an integer 0-65535, got '${raw}'`);
  return port;
}
