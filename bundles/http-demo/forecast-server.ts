/**
 * The stand-in weather service of the http-demo bundle: a tiny HTTP server on 127.0.0.1 with canned
 * forecasts, so the demo runs offline. `GET /forecast/<city>` needs `Authorization: Bearer demo-key`.
 *
 *   bun bundles/http-demo/forecast-server.ts          # listens on 127.0.0.1:8787 (PORT to change)
 */
import type { Server } from 'bun';

const FORECASTS: Record<string, { forecast: string; highC: number; lowC: number }> = {
  seoul: { forecast: 'clear skies, a cold wind from the north-west', highC: 7, lowC: -2 },
  busan: { forecast: 'sunny spells, mild by the sea', highC: 14, lowC: 6 },
  lisbon: { forecast: 'light rain in the morning, then bright', highC: 17, lowC: 11 },
};

export function startForecastServer(port: number): Server<undefined> {
  return Bun.serve({
    hostname: '127.0.0.1',
    port,
    fetch(request) {
      const url = new URL(request.url);
      if (request.headers.get('authorization') !== 'Bearer demo-key') return Response.json({ error: 'missing or wrong API key' }, { status: 401 });
      const match = /^\/forecast\/([^/]+)$/.exec(url.pathname);
      const city = decodeURIComponent(match?.[1] ?? '');
      const forecast = FORECASTS[city.toLowerCase()];
      if (!forecast) return Response.json({ error: `no forecast for "${city}"`, known: Object.keys(FORECASTS) }, { status: 404 });
      return Response.json({ city, ...forecast });
    },
  });
}

if (import.meta.main) {
  const server = startForecastServer(Number(process.env.PORT ?? 8787));
  console.log(`forecast service on http://127.0.0.1:${server.port} (Ctrl-C to stop)`);
}
