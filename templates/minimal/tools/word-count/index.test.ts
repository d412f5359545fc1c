/** `bun test`: the handler called directly, as goondan calls it. */
import { describe, expect, test } from 'bun:test';
import { handlers } from './index.ts';

const ctx = { workdir: process.cwd() };

describe('word-count__count', () => {
  test('counts words separated by any whitespace, and characters', async () => {
    expect(await handlers.count(ctx, { text: 'the quick  brown\nfox' })).toEqual({ words: 4, characters: 20 });
  });

  test('an empty text has no words', async () => {
    expect(await handlers.count(ctx, { text: '   ' })).toEqual({ words: 0, characters: 3 });
  });
});
