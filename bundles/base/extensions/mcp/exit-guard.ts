/**
 * Safety net for stdio servers: if the agent process exits without the engine's close (a crash,
 * `process.exit`), the children would be left running. An 'exit' listener can only run
 * synchronous code, so it sends SIGTERM to each server process still alive.
 */
import type { McpServerConnection } from './server-connection.ts';

/** Installs the listener; the returned function removes it (after an orderly close). */
export function installExitGuard(connections: readonly McpServerConnection[]): () => void {
  const onExit = (): void => {
    for (const connection of connections) connection.killNow();
  };
  process.on('exit', onExit);
  return () => {
    process.off('exit', onExit);
  };
}
