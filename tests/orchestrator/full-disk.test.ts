/**
 * A disk that fills up mid-write (ENOSPC) on the real kernel: a tiny tmpfs in a private mount
 * namespace (`unshare`, also without root). A refused append leaves no torn line for the next one
 * to be glued to, a refused accept is the caller's error, and the outcome of an accepted event
 * answered while the disk was full reaches the ledger file once space is back.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const mountPoint = mkdtempSync(join(tmpdir(), 'goondan-full-disk-'));
afterAll(() => rmSync(mountPoint, { recursive: true, force: true }));
const SCRIPT = join(import.meta.dir, '../fixtures/durability/full-disk.ts');

describe('a full disk', () => {
  test('refused appends are cut back whole; the ledger keeps an outcome and writes it once space is back', async () => {
    const command = `mount -t tmpfs -o size=64k tmpfs '${mountPoint}' && exec '${process.execPath}' '${SCRIPT}' '${mountPoint}'`;
    const proc = Bun.spawn(['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', command], { stdout: 'pipe', stderr: 'pipe' });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const result = JSON.parse(out) as Record<string, unknown>;
    expect(result).toMatchObject({
      appendedWhenFull: { broken: 0, endsAtNewline: true },
      appendedAfter: { broken: 0, endsAtNewline: true },
      acceptRefused: true,
      answeredInMemory: 'done',
      refusedOutcomes: 1,
      afterReopen: 'done',
      reopenedAll: true,
      ledgerLines: { broken: 0, endsAtNewline: true },
    });
    expect(Number(result.refusedAppends)).toBeGreaterThan(0);
    expect((result.appendedAfter as { whole: number }).whole).toBe(Number(result.writtenAppends) + 1);
  });
});
