#!/usr/bin/env bun
/**
 * Builds the studio into studio/dist at install time (`npm run build:studio`, run by `prepare`,
 * so `npm install` / `npm ci` do it): the TypeScript bundled and minified into one script, the
 * page and its stylesheet copied beside it. The daemon only serves these files; nothing is built
 * at run time.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
// The stylesheet goes inline: one render-blocking request fewer before the first paint. The page's
// Content-Security-Policy allows exactly this style by its hash (studio-routes.ts reads style.sha256).
const css = readFileSync(join(here, 'studio.css'), 'utf8');
const html = readFileSync(join(here, 'index.html'), 'utf8');
const link = '<link rel="stylesheet" href="/studio/studio.css">';
if (!html.includes(link)) throw new Error(`studio/index.html must link the stylesheet as ${link}`);
writeFileSync(join(dist, 'index.html'), html.replace(link, () => `<style>${css}</style>`));
writeFileSync(join(dist, 'style.sha256'), createHash('sha256').update(css).digest('base64'));
const sizes = ['index.html', 'studio.js'].map((file) => `${file} ${statSync(join(dist, file)).size} B`);
console.log(`studio built in ${dist}: ${sizes.join(', ')}`);
