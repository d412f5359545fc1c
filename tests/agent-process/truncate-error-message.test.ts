import { describe, expect, test } from 'bun:test';
import { DEFAULT_ERROR_MESSAGE_LIMIT, TRUNCATION_SUFFIX, truncateErrorMessage } from '../../agent-process/tools/truncate-error-message.ts';

describe('errorMessageLimit truncation (tool spec §10.4)', () => {
  test('the default limit is 1000', () => {
    expect(DEFAULT_ERROR_MESSAGE_LIMIT).toBe(1000);
    expect(truncateErrorMessage('x'.repeat(1500))).toHaveLength(1000);
  });
  test('a message at the limit is unchanged', () => {
    expect(truncateErrorMessage('x'.repeat(100), 100)).toBe('x'.repeat(100));
  });
  test('one over the limit keeps limit − suffix chars plus the suffix', () => {
    const cut = truncateErrorMessage('y'.repeat(101), 100);
    expect(cut).toHaveLength(100);
    expect(cut).toBe('y'.repeat(100 - TRUNCATION_SUFFIX.length) + TRUNCATION_SUFFIX);
  });
  test('a limit equal to the suffix length leaves only the suffix', () => {
    expect(truncateErrorMessage('z'.repeat(50), TRUNCATION_SUFFIX.length)).toBe(TRUNCATION_SUFFIX);
  });
  test('a limit smaller than the suffix just slices', () => {
    expect(truncateErrorMessage('abcdefghij', 4)).toBe('abcd');
  });
  test('a zero limit gives an empty message', () => {
    expect(truncateErrorMessage('abc', 0)).toBe('');
  });
});
