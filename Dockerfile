# syntax=docker/dockerfile:1
# One image for the six services: the command chooses one, e.g.
#   docker run nodes-manager:local node dist/services/node-sync/src/main.js
# No HEALTHCHECK: Kubernetes probes /healthz and /readyz (deploy/), docker-compose needs none. See docs/deploy.md.

ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- build: all dependencies, then swc compiles libs, services, migrations and all-in-one into dist/ ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- prod-deps: only the dependencies the services import at run time ---
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime: dist (with the compiled migrations), production node_modules, package.json ("type": "module") ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
WORKDIR /app
COPY --from=prod-deps --chown=0:0 /app/node_modules ./node_modules
COPY --from=build --chown=0:0 /app/package.json ./package.json
COPY --from=build --chown=0:0 /app/dist ./dist
# Code and dependencies stay owned by root and read-only to the service user (numeric, so runAsNonRoot can verify it).
USER 10001:10001
EXPOSE 8115 8121 8122 8123 8124 8125
CMD ["node", "dist/services/api-gateway/src/main.js"]
