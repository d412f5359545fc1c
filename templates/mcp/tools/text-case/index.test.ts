/** `bun test`: the handler called directly, as goondan calls it. */
import { describe, expect, test } from 'bun:test';
import { handlers } from './index.ts';

describe('text-case__upper', () => {
  test('capitalises every letter, leaving the rest', async () => {
    expect(await handlers.upper({ workdir: process.cwd() }, { text: 'hello, world 2' })).toEqual({ text: 'HELLO, WORLD 2' });
  });
});
