export * from './error-shape.ts';
export * from './goondan-error.ts';
export * from './runtime-errors.ts';
