# threadgate: one container next to your inbox or helpdesk.
#   docker build -t threadgate .
#   docker run -p 8080:8080 -v threadgate-data:/data -v ./threadgate.yaml:/etc/threadgate.yaml:ro \
#     -e THREADGATE_CONFIG=/etc/threadgate.yaml threadgate
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-slim
ENV NODE_ENV=production
# glibc arenas: see GATEWAY_ENV in src/cli/node-flags.ts (a test keeps the two in step).
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY connectors ./connectors
COPY migrations ./migrations
# The compiled code of the modules the gateway loads (type stripping included),
# kept between starts (src/cli/threadgate.js): made here once, so that even a first
# start, with a full mailbox waiting, loads in about half the time.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
RUN node --input-type=module -e "for (const m of ['/app/src/cli/serve-command.ts', '/app/src/cli/gateway.ts', '/app/connectors/email/index.ts', '/app/connectors/redmine/index.ts', '/app/connectors/webhook/index.ts']) await import(m); (await import('node:module')).flushCompileCache();" \
  && chown -R node:node /app/.compile-cache
# The store lives on the /data volume: THREADGATE_STORE_PATH is the store.path
# used when the settings file sets none. A store.path in the file wins, and a
# relative one resolves against the file's folder (/etc for the run above), so
# leave it out or make it absolute under /data. /data is created here, owned
# by the `node` user, before VOLUME, so a new named volume starts with that
# owner; a bind-mounted folder must be writable by uid 1000.
ENV THREADGATE_STORE_PATH=/data/threadgate.db
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
WORKDIR /data
USER node
EXPOSE 8080
# `threadgate health` reads the same settings as `serve` (THREADGATE_CONFIG)
# and asks /healthz on server.port over loopback: exit 0 healthy, 1 not. A
# port given as `serve --port` is not seen by it; set server.port instead.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "/app/src/cli/threadgate.js", "health"]
# A young generation of two 8 MiB semi-spaces instead of V8's up to 128 MiB (src/cli/node-flags.ts).
ENTRYPOINT ["node", "--max-semi-space-size=8", "/app/src/cli/threadgate.js"]
CMD ["serve", "--host", "0.0.0.0"]
