/** `goondan --help` lists commands without importing them; the list must agree with the modules. */
import { describe, expect, test } from 'bun:test';
import { commands } from '../../orchestrator/cli/commands/index.ts';

describe('the lazily loaded command list', () => {
  test('every entry loads the command of its name, and its summary is the command’s own', async () => {
    for (const entry of commands) {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary }).toEqual({ name: entry.name, summary: entry.summary });
    }
  });
});
