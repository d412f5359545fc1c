/** Connector event names are unique (SPEC.md §1.2). */
import { isJsonObject } from '../types/json.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import type { ProblemSink } from './problem-sink.ts';

export function checkConnectorEvents(doc: NamedDocument, sink: ProblemSink): void {
  const events = specOf(doc)?.events;
  if (!Array.isArray(events)) return;
  const seen = new Map<string, number>();
  events.forEach((event, i) => {
    const name = isJsonObject(event) ? event.name : undefined;
    if (typeof name !== 'string') return;
    const earlier = seen.get(name);
    if (earlier === undefined) {
      seen.set(name, i);
      return;
    }
    sink.at(doc, ['spec', 'events', i, 'name'], 'E_CONFIG_DUPLICATE_EVENT', `event "${name}" is already declared at spec.events[${earlier}]`, {
      suggestion: 'give each event a unique name',
    });
  });
}
