#!/usr/bin/env bun
/**
 * Builds the studio into studio/dist at install time (`npm run build:studio`, run by `prepare`,
 * so `npm install` / `npm ci` do it): the TypeScript bundled and minified into one script, the
 * page and its stylesheet copied beside it. The daemon only serves these files; nothing is built
 * at run time.
 */
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const here = import.meta.dir;
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const result = await Bun.build({ entrypoints: [join(here, 'src/main.ts')], outdir: dist, naming: 'studio.js', target: 'browser', minify: true });
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
for (const file of ['index.html', 'studio.css']) copyFileSync(join(here, file), join(dist, file));
const sizes = ['index.html', 'studio.js', 'studio.css'].map((file) => `${file} ${statSync(join(dist, file)).size} B`);
console.log(`studio built in ${dist}: ${sizes.join(', ')}`);
