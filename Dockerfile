# goondan in a container: non-root, state on a volume, JSON logs on stdout, /healthz probe.
#   docker build -t goondan .
#   docker run --rm -p 7420:7420 -e GOONDAN_API_TOKEN=change-me -v goondan-state:/var/lib/goondan \
#     -v "$PWD/my-bundle:/bundle:ro" goondan
# Another port: -e GOONDAN_PORT=8080 -p 8080:8080 (the health check follows it).
FROM node:20-bookworm-slim AS install
WORKDIR /opt/goondan
COPY package.json package-lock.json ./
# npm ci runs `prepare`, which bundles the studio's page from its sources (studio/ and shared/).
COPY shared ./shared
COPY studio ./studio
# Production dependencies only; the `bun` package brings the Bun runtime.
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY orchestrator ./orchestrator
COPY agent-process ./agent-process
COPY bundles ./bundles
COPY templates ./templates
COPY schemas ./schemas
COPY docs ./docs

# Node (with npm and npx) stays in the final image: MCP servers are commonly started as
# `command: npx, args: [-y, @modelcontextprotocol/server-…]`.
FROM node:20-bookworm-slim
# tini reaps orphaned tool processes (PID 1 duty) and forwards SIGTERM to the daemon.
# bubblewrap sandboxes tool processes where the container may create user namespaces (Docker's
# default seccomp profile forbids it: then goondan warns at start and runs tools unsandboxed).
RUN apt-get update && apt-get install -y --no-install-recommends tini ca-certificates bubblewrap \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --system --uid 10001 --home /var/lib/goondan --shell /usr/sbin/nologin goondan \
  && install -d -o goondan -g goondan -m 0750 /var/lib/goondan
COPY --from=install /opt/goondan /opt/goondan
# The user the image runs as cannot write to /opt/goondan: what a daemon builds on first use (the
# agent entry bundle, schema validators, their bytecode) is kept on the state volume instead.
ENV GOONDAN_STATE_ROOT=/var/lib/goondan \
    GOONDAN_CACHE_DIR=/var/lib/goondan/cache \
    GOONDAN_PORT=7420 \
    HOME=/var/lib/goondan \
    NPM_CONFIG_CACHE=/var/lib/goondan/.npm
VOLUME ["/var/lib/goondan"]
USER goondan
EXPOSE 7420
# The API must listen on 0.0.0.0 to be reachable from outside the container, which requires
# GOONDAN_API_TOKEN (requests then send 'Authorization: Bearer <token>'; /healthz stays open).
# `goondan run` takes its port from GOONDAN_PORT (no --port below), and so does the probe.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["/opt/goondan/node_modules/.bin/bun", "-e", "fetch(`http://127.0.0.1:${process.env.GOONDAN_PORT || 7420}/healthz`).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/goondan/bin/goondan"]
CMD ["run", "/bundle", "--host", "0.0.0.0"]
