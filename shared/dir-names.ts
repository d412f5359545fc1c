/** A directory's entry names; none when it is missing or not a directory (nothing written there yet). */
import { readdirSync } from 'node:fs';

export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
