/**
 * The CLI's HTTP calls to the API: a key, optionally a merchant a provider acts for
 * (`X-Entity-Id`), and the API's base URL. Every call says the SDK's `Idpay-Version`.
 */
import { API_VERSION } from '../generated/meta.js';

export interface Target {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` (no trailing `/v1`). */
  api: string;
  key: string;
  /** A provider's key acting for this merchant (sent as X-Entity-Id on merchant calls). */
  entity?: string;
}

export interface Answer {
  status: number;
  /** JSON answers of many shapes, read field by field. */
  body: any;
}

/** An event as the events API lists it. */
export interface ApiEvent {
  id: string;
  type: string;
  createdAt: string;
  apiVersion?: string;
  livemode?: boolean;
  data: Record<string, any>;
}

/** One API call; `asProvider`: a provider's own route (no X-Entity-Id). */
export async function call(t: Target, method: string, path: string, body?: unknown, opts: { asProvider?: boolean } = {}): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${t.key}`, 'Idpay-Version': API_VERSION };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (t.entity && !opts.asProvider) headers['X-Entity-Id'] = t.entity;
  const r = await fetch(`${t.api.replace(/\/+$/, '')}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, body: parsed };
}

/** The body of a 2xx answer; otherwise an error naming the call, its status and message. */
export function must(r: Answer, what: string): any {
  if (r.status >= 300) {
    const b = Array.isArray(r.body) ? r.body[0] : r.body;
    throw new Error(`${what}: ${r.status} ${typeof b === 'object' ? (b?.message ?? JSON.stringify(r.body)) : r.body}`);
  }
  return r.body;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
