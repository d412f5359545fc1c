import { describe, expect, test } from 'bun:test';
import { OutputCollector } from '../../bundles/base/tools/bash/output-collector.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('OutputCollector keeps the head and the tail within the cap', () => {
  test('output under the cap is kept whole, across chunks', () => {
    const collector = new OutputCollector(100);
    for (const chunk of ['abc', 'def', 'ghi']) collector.push(bytes(chunk));
    expect(collector.truncated).toBe(false);
    expect(collector.text()).toBe('abcdefghi');
    expect(collector.totalBytes).toBe(9);
  });

  test('over the cap: first and last half kept, the middle counted', () => {
    const collector = new OutputCollector(10);
    for (let i = 0; i < 10; i += 1) collector.push(bytes('0123456789'));
    expect(collector.truncated).toBe(true);
    expect(collector.text()).toBe('01234\n[... 90 bytes omitted ...]\n56789');
  });

  test('a cut inside a multi-byte character never yields a broken character', () => {
    const collector = new OutputCollector(8);
    collector.push(bytes('가나다라마바사')); // 3 bytes each
    const text = collector.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('가')).toBe(true);
    expect(text.endsWith('사')).toBe(true);
  });
});
