/**
 * The dashboard under the local stack (DESIGN 8.4): the built app (dashboard/dist) served at
 * `/dashboard/` by the local server, as CloudFront serves it on AWS, with its runtime settings
 * at `/dashboard/config.json` (the local Cognito emulator) and the same security headers.
 * `ensureDashboardBuilt` builds it when missing or older than its sources (npm start, tests).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dashboardHeaders } from '../lib/dashboard-headers';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const DASHBOARD_SRC = join(ROOT, 'dashboard');
export const DASHBOARD_DIST = join(DASHBOARD_SRC, 'dist');
const BASE = '/dashboard/';

/** What the app's build depends on: its own sources, the SDK (and its generated types), the route table, the user pool's rules. */
const SOURCES = [
  join(DASHBOARD_SRC, 'src'),
  join(DASHBOARD_SRC, 'public'),
  join(DASHBOARD_SRC, 'index.html'),
  join(DASHBOARD_SRC, 'vite.config.ts'),
  join(ROOT, 'sdk', 'src'),
  join(ROOT, 'functions', 'routes.ts'),
  join(ROOT, 'functions', 'identity', 'pool.ts'),
  join(ROOT, 'functions', 'events', 'types.ts'),
];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((f) => newest(join(path, f))));
}

export function dashboardStale(): boolean {
  const built = join(DASHBOARD_DIST, 'index.html');
  return !existsSync(built) || Math.max(...SOURCES.map(newest)) > statSync(built).mtimeMs;
}

/**
 * Builds the app with Vite when stale (about 3 s). A lock directory keeps two processes
 * (the test projects' setups, a test run beside `npm start`) from building into dist at once.
 */
export function ensureDashboardBuilt(log: (line: string) => void = () => undefined): void {
  if (!dashboardStale()) return;
  const lock = join(DASHBOARD_SRC, '.build-lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than two minutes is left over from a killed build.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`dashboard build: ${lock} is held; remove it if no build is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!dashboardStale()) return;
    log('Building the dashboard (vite build)...');
    const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
    const r = spawnSync(process.execPath, [vite, 'build', '--config', join(DASHBOARD_SRC, 'vite.config.ts'), '--logLevel', 'warn'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    if (r.status !== 0) throw new Error(`dashboard build failed: ${r.stderr || r.stdout}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The app's runtime settings, from the running stack's environment. */
export function dashboardConfig(env: NodeJS.ProcessEnv = process.env) {
  const issuer = env.COGNITO_ISSUER ?? '';
  const poolId = env.COGNITO_USER_POOL_ID ?? '';
  return {
    stage: env.STAGE === 'live' ? 'live' : 'sandbox',
    region: env.AWS_REGION ?? 'us-east-1',
    userPoolId: poolId,
    userPoolClientId: env.COGNITO_CLIENT_ID ?? '',
    // cognito-local's issuer is `<emulator url>/<poolId>`; its API is at the emulator's root.
    cognitoEndpoint: issuer.endsWith(`/${poolId}`) ? issuer.slice(0, -poolId.length) : issuer,
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Serves `/dashboard` and below; false for any other path (the API's). */
export function serveDashboard(req: IncomingMessage, res: ServerResponse): boolean {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== '/dashboard' && !url.pathname.startsWith(BASE)) return false;
  const config = dashboardConfig();
  const headers = dashboardHeaders(new URL(config.cognitoEndpoint || 'http://127.0.0.1').origin, false);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', ...headers }).end();
    return true;
  }
  if (url.pathname === '/dashboard') {
    res.writeHead(301, { Location: BASE, ...headers }).end();
    return true;
  }
  if (url.pathname === `${BASE}config.json`) {
    res.writeHead(200, { 'Content-Type': TYPES['.json']!, 'Cache-Control': 'no-store', ...headers }).end(JSON.stringify(config));
    return true;
  }
  const rel = normalize(decodeURIComponent(url.pathname.slice(BASE.length)));
  const file = join(DASHBOARD_DIST, rel);
  const inside = file.startsWith(DASHBOARD_DIST + sep);
  const asset = inside && existsSync(file) && statSync(file).isFile();
  // The SPA: any other path under /dashboard/ is the app's own route (index.html).
  const path = asset ? file : join(DASHBOARD_DIST, 'index.html');
  if (!existsSync(path)) {
    res
      .writeHead(503, { 'Content-Type': 'text/plain', ...headers })
      .end('The dashboard is not built: run npm start (it builds it) or vite build');
    return true;
  }
  const immutable = asset && rel.startsWith(`assets${sep}`);
  res.writeHead(200, {
    'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : readFileSync(path));
  return true;
}
