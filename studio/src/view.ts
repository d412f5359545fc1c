/** What every view of the studio is given and what it offers the page. */
import type { ApiClient } from './api-client.ts';
import type { LiveEvents } from './live-events.ts';

export interface SwarmInfo {
  name: string;
  entryAgent: string;
  agents: string[];
}

export interface StudioContext {
  api: ApiClient;
  live: LiveEvents;
  swarm: SwarmInfo;
  /** Says something to screen readers (and shows it in the status line). */
  announce(text: string): void;
  /** Goes to a view, e.g. `navigate('trace', traceId)`. */
  navigate(view: ViewId, ...params: string[]): void;
}

export const VIEW_IDS = ['swarm', 'processes', 'conversation', 'trace', 'approvals', 'metrics'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export interface View {
  readonly element: HTMLElement;
  /** Shown (again), with the route's parameters after the view name. */
  show(params: string[]): void;
  hide(): void;
}
