/**
 * A reply printed as it streams (issue 13; `goondan send`, `goondan run --input`, the terminal
 * chat): chunks as they come, then only what they did not show, so the screen ends exactly as a
 * non-streaming print of the reply would (the reply followed by one line end).
 */
import { describe, expect, test } from 'bun:test';
import { StreamedReply } from '../../shared/streaming/streamed-reply.ts';

/** Everything written, in order: the chunks' prints, then the finish. */
function screen(chunks: Array<[string, string]>, output: string): string {
  const reply = new StreamedReply();
  return chunks.map(([stepId, text]) => reply.chunk(stepId, text)).join('') + reply.finish(output);
}

describe('the final screen is what a non-streaming print shows', () => {
  test('a reply streamed whole gets only its line end', () => {
    const reply = new StreamedReply();
    expect(reply.chunk('s1', 'one ')).toBe('one ');
    expect(reply.chunk('s1', 'two')).toBe('two');
    expect(reply.finish('one two')).toBe('\n');
  });

  test('nothing streamed (a model that does not stream): the whole reply and its line end', () => {
    expect(screen([], 'whole reply')).toBe('whole reply\n');
    expect(screen([], '')).toBe('\n');
  });

  test('a reply that already ends with a line end gets no second one, streamed or not', () => {
    expect(screen([['s1', 'done\n']], 'done\n')).toBe('done\n');
    expect(screen([], 'done\n')).toBe('done\n');
  });

  test('the rest the chunks did not carry is printed', () => {
    expect(screen([['s1', 'one ']], 'one two')).toBe('one two\n');
  });
});

describe('text that is not the reply', () => {
  test("an earlier step's text stays, a line break before the next step's; the reply is the last step's text", () => {
    expect(screen([['s1', 'Let me look.'], ['s2', 'Found it.']], 'Found it.')).toBe('Let me look.\nFound it.\n');
  });

  test('a reply other than what streamed is printed whole on its own line', () => {
    expect(screen([['s1', 'draft']], 'rewritten by middleware')).toBe('draft\nrewritten by middleware\n');
  });

  test('lineBreak ends a streamed line before a failure is told, and is empty when nothing streamed', () => {
    const reply = new StreamedReply();
    expect(reply.lineBreak()).toBe('');
    reply.chunk('s1', 'half a sent');
    expect(reply.started).toBe(true);
    expect(reply.lineBreak()).toBe('\n');
  });
});
