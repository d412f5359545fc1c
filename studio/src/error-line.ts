/** The line each view shows when a call to the daemon failed, cleared by the next success. */
import { describeError } from './api-client.ts';
import { h } from './dom.ts';

export interface ErrorLine {
  element: HTMLElement;
  show(error: unknown): void;
  clear(): void;
}

export function errorLine(): ErrorLine {
  const element = h('p', { class: 'error', role: 'alert', hidden: true });
  return {
    element,
    show(error) {
      element.textContent = describeError(error);
      element.hidden = false;
    },
    clear() {
      element.hidden = true;
    },
  };
}
