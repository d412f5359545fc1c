/** `bun test`: the handler called directly, as goondan calls it. */
import { describe, expect, test } from 'bun:test';
import { handlers } from './index.ts';

const ctx = { workdir: process.cwd() };

describe('bullets__format', () => {
  test('one bullet per non-empty line', async () => {
    expect(await handlers.format(ctx, { text: 'first\n\n  second  \nthird' })).toEqual({ text: '- first\n- second\n- third', items: 3 });
  });

  test('a text without items is an error the model can act on', async () => {
    await expect(handlers.format(ctx, { text: ' \n ' })).rejects.toThrow('one item per line');
  });
});
