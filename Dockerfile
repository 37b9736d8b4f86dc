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
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY connectors ./connectors
COPY migrations ./migrations
# The default store path ./data/threadgate.db resolves against the working
# folder, so running from / keeps the database on the /data volume.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
WORKDIR /
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/src/cli/main.ts"]
CMD ["serve", "--host", "0.0.0.0"]
