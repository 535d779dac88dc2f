# syntax=docker/dockerfile:1
# One image for the six services (and the all-in-one process): the command chooses one, e.g.
#   docker run nodes-manager:local node dist/services/node-sync/src/main.js
# No HEALTHCHECK: Kubernetes probes /healthz and /readyz (deploy/), docker-compose needs none. See docs/deploy.md:
# it also says how to build it with podman or buildah (scripts/image/build-image.mjs, without a Docker engine).

ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- build: all dependencies; swc compiles libs, services, migrations and all-in-one into dist/; then only the files
# the production entry points load are gathered in /runtime (scripts/image/runtime-files.mjs) ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && node scripts/image/runtime-files.mjs /runtime

# --- runtime: dist (with the compiled migrations), the traced node_modules, package.json ("type": "module") ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
WORKDIR /app
# Code and dependencies stay owned by root and read-only to the service user (numeric, so runAsNonRoot can verify it).
COPY --from=build --chown=0:0 /runtime/ ./
USER 10001:10001
EXPOSE 8115 8121 8122 8123 8124 8125
CMD ["node", "dist/services/api-gateway/src/main.js"]
