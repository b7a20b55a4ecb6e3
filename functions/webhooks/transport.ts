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

export interface PostResult {
  statusCode: number | null;
  /** Set when no HTTP status was received. */
  error: string | null;
  retryAfter: string | null;
  durationMs: number;
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
        finish({ statusCode: res.statusCode ?? null, error: null, retryAfter: Array.isArray(ra) ? (ra[0] ?? null) : (ra ?? null) });
        res.resume(); // the body is not used; drain it so the connection can be reused
        res.on('error', () => undefined);
      },
    );
    req.on('error', (e) => finish({ statusCode: null, error: errorCode(e), retryAfter: null }));
    req.end(opts.body);
  });
}
