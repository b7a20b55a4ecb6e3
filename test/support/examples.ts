/**
 * RECORD_EXAMPLES=1: the test clients write what they saw, one line per 2xx exchange with its
 * operation, normalised at once (scripts/openapi/examples.ts: no secret, key or random id in
 * clear), to .local/examples/<process>.jsonl; `npm run openapi:examples` picks the examples
 * the reference shows. Off by default: nothing is written.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { matchRoute, routeKey, routesFor } from '../../functions/routes';
import { RECORDINGS_DIR, WEBHOOK_EXAMPLE, normaliseExample } from '../../scripts/openapi/examples';

const RECORDING = process.env.RECORD_EXAMPLES === '1';
const file = resolve(__dirname, '../..', RECORDINGS_DIR, `${process.pid}.jsonl`);
/** Per operation and status, how many were written by this process (a few are enough). */
const written = new Map<string, number>();
const PER_OPERATION = 4;

export function recordExample(
  stage: 'sandbox' | 'live',
  method: string,
  url: string,
  status: number,
  request: unknown,
  response: unknown,
  scrub: readonly string[] = [],
): void {
  if (!RECORDING || status < 200 || status > 299) return;
  const hit = matchRoute(routesFor(stage), method.toUpperCase(), new URL(url, 'http://x').pathname);
  if (!hit) return;
  const route = routeKey(hit.route);
  // The events API shows real events: each one is also its type's webhook payload example.
  for (const event of eventsShown(route, response)) write(`${WEBHOOK_EXAMPLE} ${event.type}`, stage, 200, undefined, event, scrub);
  const html = typeof response === 'string' ? `${response.slice(0, 200)}…` : undefined;
  write(route, stage, status, request, html ?? response, scrub);
}

function write(route: string, stage: 'sandbox' | 'live', status: number, request: unknown, response: unknown, scrub: readonly string[]) {
  const key = `${route} ${status}`;
  if ((written.get(key) ?? 0) >= PER_OPERATION) return;
  written.set(key, (written.get(key) ?? 0) + 1);
  const rec = normaliseExample({ route, stage, status, ...(request === undefined ? {} : { request }), response }, scrub);
  mkdirSync(resolve(file, '..'), { recursive: true });
  appendFileSync(file, `${JSON.stringify(rec)}\n`);
}

/** The events of an events API answer, each as its webhook delivers it (without the caller's `deliveries`). */
function eventsShown(route: string, response: unknown): { type: string }[] {
  const data = (response as { data?: unknown } | null)?.data as Record<string, unknown> | undefined;
  const events = route === 'GET /v1/events' ? data?.events : route === 'GET /v1/events/{id}' ? [data] : undefined;
  if (!Array.isArray(events)) return [];
  return events
    .filter((e): e is Record<string, unknown> & { type: string } => typeof e?.type === 'string')
    .map(({ deliveries: _, ...event }) => event);
}
