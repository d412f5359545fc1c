#!/usr/bin/env bun
/** Writes schemas/goondan.schema.json from the per-Kind schemas: `bun shared/schemas/publish.ts`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishedSchemaText } from './published-schema.ts';

export const PUBLISHED_SCHEMA_PATH = join(import.meta.dir, '..', '..', 'schemas', 'goondan.schema.json');

if (import.meta.main) {
  writeFileSync(PUBLISHED_SCHEMA_PATH, publishedSchemaText());
  console.log(`wrote ${PUBLISHED_SCHEMA_PATH}`);
}
