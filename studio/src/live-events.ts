/**
 * The daemon's runtime events over Server-Sent Events (`GET /v1/events/stream`), fanned out to the
 * views. Also carries `step.delta` (model output as it streams) when the daemon sends it. The
 * browser's EventSource reconnects by itself after a dropped connection; one refused outright
 * (e.g. the session expired) is retried here after a pause. Events arrive as default `message`
 * events whose data is `{type, …}`; a reconnect resumes from the last `id:` (Last-Event-ID).
 */
import { RUNTIME_EVENT_TYPES } from '../../shared/types/turns.ts';
import { type LiveEvent, toLiveEvent } from './model/live-event.ts';

export type LiveState = 'connecting' | 'live' | 'offline';

const RETRY_MS = 3_000;
const EVENT_TYPES = new Set<string>([...RUNTIME_EVENT_TYPES, 'step.delta']);

export class LiveEvents {
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  private readonly stateListeners = new Set<(state: LiveState) => void>();
  private source: EventSource | undefined;

  connect(): void {
    this.setState('connecting');
    const source = new EventSource('/v1/events/stream', { withCredentials: true });
    this.source = source;
    source.onopen = () => this.setState('live');
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) return this.setState('connecting');
      this.setState('offline');
      setTimeout(() => this.source === source && this.connect(), RETRY_MS);
    };
    source.onmessage = (message) => this.dispatch(message);
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onState(listener: (state: LiveState) => void): void {
    this.stateListeners.add(listener);
  }

  private dispatch(message: MessageEvent): void {
    if (typeof message.data !== 'string') return;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    const type = typeof data === 'object' && data !== null && 'type' in data && typeof data.type === 'string' ? data.type : '';
    if (!EVENT_TYPES.has(type)) return;
    const event = toLiveEvent(type, data);
    if (!event) return;
    for (const listener of this.listeners) listener(event);
  }

  private setState(state: LiveState): void {
    for (const listener of this.stateListeners) listener(state);
  }
}
