/** Type-only barrel: tool, extension and connector modules import from here. */
export type * from './json.ts';
export type * from './resources.ts';
export type * from './bundle.ts';
export type * from './events.ts';
export type * from './messages.ts';
export type * from './tools.ts';
export type * from './turns.ts';
export type * from './extensions.ts';
export type * from './connectors.ts';
export type * from './sandbox.ts';
