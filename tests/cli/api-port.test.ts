/** The API port: --port > $GOONDAN_PORT > 7420; a bad value is a usage error naming its source. */
import { describe, expect, test } from 'bun:test';
import { DEFAULT_PORT, resolveApiPort } from '../../orchestrator/cli/api-port.ts';
import { UsageError } from '../../orchestrator/cli/command.ts';

describe('resolveApiPort', () => {
  test('--port wins over GOONDAN_PORT, which wins over the default 7420', () => {
    expect(resolveApiPort('8080', { GOONDAN_PORT: '9090' })).toBe(8080);
    expect(resolveApiPort(undefined, { GOONDAN_PORT: '9090' })).toBe(9090);
    expect(resolveApiPort(undefined, {})).toBe(DEFAULT_PORT);
    expect(resolveApiPort('0', {})).toBe(0);
  });

  test('a bad value names where it came from', () => {
    expect(() => resolveApiPort(undefined, { GOONDAN_PORT: 'http' })).toThrow(new UsageError("GOONDAN_PORT must be an integer 0-65535, got 'http'"));
    expect(() => resolveApiPort('70000', {})).toThrow(new UsageError("--port must be an integer 0-65535, got '70000'"));
    expect(() => resolveApiPort(' ', {})).toThrow(UsageError);
  });
});
