/**
 * `--watch`: any change under the bundle root (YAML, prompt files, tool/extension/connector
 * sources) triggers one debounced reload; the reload decides what to restart.
 */
import { type FSWatcher, watch } from 'node:fs';
import type { RootLogger } from '../../shared/logger.ts';
import type { SwarmConfig } from '../daemon/swarm-config.ts';

const DEBOUNCE_MS = 300;
const IGNORED = /(^|[/\\])(node_modules|\.git|dist)([/\\]|$)|~$|\.swp$/;

export function watchBundle(config: SwarmConfig, logger: RootLogger, onChange: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(config.bundle.rootDir, { recursive: true }, (_event, filename) => {
      if (filename && IGNORED.test(String(filename))) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        logger.info({ file: filename ? String(filename) : undefined }, 'bundle changed; reloading');
        onChange();
      }, DEBOUNCE_MS);
    });
  } catch (error) {
    logger.error({ err: error, dir: config.bundle.rootDir }, 'cannot watch the bundle directory; --watch is off');
  }
  logger.info({ dir: config.bundle.rootDir }, 'watching the bundle for changes');
  return () => {
    if (timer) clearTimeout(timer);
    watcher?.close();
  };
}
