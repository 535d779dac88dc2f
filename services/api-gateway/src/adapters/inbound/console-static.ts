import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Response } from 'express';

/**
 * The console's Content-Security-Policy: everything from the gateway itself, no inline script, no framing, API calls
 * only to this origin. The bundle carries no CDN reference (docs/console.md), so nothing else is needed.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * consoleDir — where `npm run build` wrote the console (scripts/build-console.mjs): `CONSOLE_DIR` when set, else
 * `console/` or `dist/console/` in the nearest folder above this file that has one — this file sits in the sources
 * (services/…), in the compiled tree (dist/services/…) or in a bundled entry point (dist/all-in-one/src/main.js).
 */
export function consoleDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env['CONSOLE_DIR']) return resolve(env['CONSOLE_DIR']);
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'console'), join(dir, 'dist', 'console')]) if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * setupConsole — serves the operator console's static files at `/` (index.html, `assets/*`) from the HTTP adapter,
 * outside the controllers: no token is needed for the files (they hold no data; every API call they make carries the
 * user's token), and the route is not part of the API's OpenAPI document. Hashed assets are cached for a year,
 * index.html never. Call before the app listens, like setupOpenApi. Returns the folder served, or undefined when the
 * console was not built (then `/` is the API's 404).
 */
export function setupConsole(app: INestApplication, dir = consoleDir()): string | undefined {
  if (!dir) return undefined;
  const express = app as NestExpressApplication;
  const headers = { 'Content-Security-Policy': CONSOLE_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };
  // Only `/assets/` and the index are the console's: a static handler at `/` would look for every API path on disk
  // first (a file-system stat per request, in the read path's profile).
  express.useStaticAssets(join(dir, 'assets'), {
    prefix: '/assets/',
    redirect: false,
    dotfiles: 'ignore',
    fallthrough: true,
    setHeaders: (res: Response) => {
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    },
  });
  const index = join(dir, 'index.html');
  const server = express.getHttpAdapter().getInstance() as { get(paths: string[], handler: (req: unknown, res: Response) => void): void };
  server.get(['/', '/index.html'], (_req, res) => res.sendFile(index, { headers: { ...headers, 'Cache-Control': 'no-cache' } }));
  return dir;
}
