# ModelGate container image (docs/deployment.md#container).
#   docker build -t modelgate .
#   docker run -d -p 3000:3000 -v modelgate-data:/data -e SESSION_SECRET=change-me modelgate

# --- build: install with the lock file, build with the project's own scripts ---------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 is compiled when no prebuilt binary matches the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/testkit/package.json packages/testkit/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# --- run: the built server and console, production dependencies, a non-root user ----------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    SQLITE_PATH=/data/modelgate.db \
    SHUTDOWN_TIMEOUT=30
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages/shared/package.json ./packages/shared/package.json
COPY --from=build /app/packages/shared/dist ./packages/shared/dist
COPY --from=build /app/packages/server/package.json ./packages/server/package.json
COPY --from=build /app/packages/server/dist ./packages/server/dist
COPY --from=build /app/packages/web/dist ./packages/web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Liveness only: /readyz (database, Redis, migrations) is for the load balancer, not for restarts.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node runs as PID 1 with its own signal handlers: `docker stop` sends SIGTERM to the server, which stops
# gracefully within SHUTDOWN_TIMEOUT (give `docker stop -t` / stop_grace_period more than that).
STOPSIGNAL SIGTERM
CMD ["node", "packages/server/dist/main.js"]
