/**
 * One webhook POST. node:http(s) rather than fetch, because the address check must happen
 * where the connection is made: a custom `lookup` refuses any resolved address the URL
 * policy forbids, so a name cannot pass a check and then resolve elsewhere (DNS rebinding).
 * Redirects are never followed (a 3xx is a failed attempt). The whole attempt, DNS
 * included, is bounded by the timeout (AbortSignal.timeout).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkWebhookUrl, isAddressAllowed, isLoopback, type Stage } from './url-policy';

export const ATTEMPT_TIMEOUT_MS = 10_000;

/** Bodies and header values kept of an attempt (DESIGN 9.3: cut at 4 KB). */
export const KEPT_BODY_BYTES = 4096;
const KEPT_HEADERS = 30;
/** How long after the status line the body may take to arrive (what came by then is kept). */
const BODY_WAIT_MS = 200;
const KEPT_HEADER_CHARS = 512;

export interface PostResult {
  statusCode: number | null;
  /** Set when no HTTP status was received. */
  error: string | null;
  retryAfter: string | null;
  durationMs: number;
  /** What the receiver answered (with a status): its headers and the first 4 KB of its body. */
  response?: { headers: Record<string, string>; body: string };
}

/** `text` cut to at most `bytes` UTF-8 bytes (never inside a character). */
export function cutUtf8(text: string, bytes = KEPT_BODY_BYTES): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return text;
  return buf
    .subarray(0, bytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

/** A receiver's headers as kept: at most 30, each value cut to 512 characters; cookies never. */
function keptHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw).slice(0, KEPT_HEADERS)) {
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(', ') : v;
    out[k] = k === 'set-cookie' ? '<redacted>' : value.slice(0, KEPT_HEADER_CHARS);
  }
  return out;
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 }),
};

/**
 * On Lambda the runtime API (and extensions) listen on loopback, and no receiver can: refuse
 * loopback there in every stage, even though sandbox accepts it when an endpoint is created.
 */
const onLambda = () => Boolean(process.env.AWS_LAMBDA_RUNTIME_API);

export function addressPermitted(address: string, stage: Stage): boolean {
  if (!isAddressAllowed(address, stage)) return false;
  return !(onLambda() && isLoopback(address));
}

class AddressNotAllowed extends Error {
  readonly code = 'EADDRNOTALLOWED';
}

type Resolver = (
  hostname: string,
  options: { all: true },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** The connect-time lookup: every address the name resolves to must pass the policy. Exported for tests. */
export function guardedLookup(stage: Stage, resolve: Resolver = dnsLookup as unknown as Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as unknown as LookupAddress[];
      if (!list.length || list.some((a) => !addressPermitted(a.address, stage))) {
        return callback(new AddressNotAllowed('address not allowed'), '', 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

function errorCode(e: unknown): string {
  const err = e as { name?: string; code?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  if (err.name === 'TimeoutError' || err.name === 'AbortError' || code === 'ABORT_ERR') return 'timeout';
  if (code === 'EADDRNOTALLOWED') return 'address_not_allowed';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'dns_error';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (/CERT|SSL|TLS|ERR_TLS/i.test(code)) return 'tls_error';
  return 'connection_error';
}

export async function postWebhook(opts: {
  url: string;
  body: string;
  headers: Record<string, string>;
  stage: Stage;
  timeoutMs?: number;
  /** Ends the attempt early (the fast lane's budget, webhooks/lanes.ts). */
  abort?: AbortSignal;
}): Promise<PostResult> {
  const started = Date.now();
  const done = (r: Omit<PostResult, 'durationMs'>): PostResult => ({ ...r, durationMs: Date.now() - started });
  const check = checkWebhookUrl(opts.url, opts.stage);
  if (!check.ok) return done({ statusCode: null, error: 'address_not_allowed', retryAfter: null });
  const url = check.url;
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !addressPermitted(literal, opts.stage)) {
    return done({ statusCode: null, error: 'address_not_allowed', retryAfter: null });
  }
  const secure = url.protocol === 'https:';
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  const signal = opts.abort ? AbortSignal.any([timeout, opts.abort]) : timeout;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    /** Once the receiver answered: finish with its answer (a body cut short keeps what arrived). */
    let answer: (() => void) | undefined;
    const finish = (r: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve(done(r));
    };
    const req = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        lookup: guardedLookup(opts.stage),
        signal,
        headers: { ...opts.headers, 'Content-Length': String(Buffer.byteLength(opts.body)) },
      },
      (res) => {
        const ra = res.headers['retry-after'];
        const answered = {
          statusCode: res.statusCode ?? null,
          error: null,
          retryAfter: Array.isArray(ra) ? (ra[0] ?? null) : (ra ?? null),
        };
        // The first 4 KB of the body are kept (shown with the attempt); the rest is drained so
        // the connection can be reused. A body that breaks off keeps what arrived.
        const chunks: Buffer[] = [];
        let size = 0;
        answer = () =>
          finish({ ...answered, response: { headers: keptHeaders(res.headers), body: cutUtf8(Buffer.concat(chunks).toString('utf8')) } });
        res.on('data', (chunk: Buffer) => {
          if (size < KEPT_BODY_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= KEPT_BODY_BYTES) answer?.(); // enough kept: the rest only drains
        });
        res.on('end', answer);
        res.on('error', answer);
        res.on('aborted', answer);
        res.on('close', answer);
        // The answer's status decides the attempt: its body gets a short while, not the attempt's budget.
        if (res.headers['content-length'] === '0') answer();
        else setTimeout(() => answer?.(), BODY_WAIT_MS).unref();
      },
    );
    req.on('error', (e) => (answer ? answer() : finish({ statusCode: null, error: errorCode(e), retryAfter: null })));
    req.end(opts.body);
  });
}
