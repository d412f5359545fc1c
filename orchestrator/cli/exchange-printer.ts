/**
 * The human-readable side of a terminal run: who asked whom what, one line per routed message,
 * on stderr so stdout stays the reply (one-shot) or the conversation (interactive).
 */
import { clipMiddle, terminalLine } from '../../shared/terminal-text.ts';
import type { ExchangeNote } from '../routing/router.ts';

const MAX_TEXT = 160;

export function formatExchange(note: ExchangeNote, color: boolean): string {
  // Agents' text: its control characters are shown as escapes, so it cannot rewrite the terminal.
  const shown = clipMiddle(terminalLine(note.text.replace(/\s+/g, ' ').trim()), MAX_TEXT);
  const label = { request: 'asks', send: 'tells', response: 'replies', error: 'fails' }[note.kind];
  const line = `  ${terminalLine(note.from)} → ${terminalLine(note.to)}  ${label}: ${shown}`;
  return color ? `\u001b[2m${line}\u001b[22m` : line;
}

/** Prints agent-to-agent traffic only: the user already sees their own input and the final reply. */
export function exchangePrinter(write: (line: string) => void, color: boolean): (note: ExchangeNote) => void {
  return (note) => {
    if (!note.external) write(`${formatExchange(note, color)}\n`);
  };
}
