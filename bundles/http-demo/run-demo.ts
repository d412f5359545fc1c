/**
 * `npm run demo:http`: starts the demo's stand-in weather service, asks the http-demo swarm one
 * question with `goondan run --input`, prints the answer and stops the service. Offline: the only
 * HTTP request goes to 127.0.0.1.
 */
import { join } from 'node:path';
import { startForecastServer } from './forecast-server.ts';

const question = process.argv[2] ?? "What's the weather in Seoul?";
const server = startForecastServer(8787);
try {
  const goondan = Bun.spawn([join(import.meta.dir, '../../bin/goondan'), 'run', import.meta.dir, '--port', '0', '--input', question], { stdout: 'inherit', stderr: 'inherit' });
  process.exitCode = await goondan.exited;
} finally {
  server.stop(true);
}
