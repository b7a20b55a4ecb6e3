/**
 * Webhook URL rules (DESIGN 6.9). Pure: no DNS, no clock. Used when an endpoint is created
 * (the URL and any literal IP in it) and again by the delivery worker for every address a
 * name resolves to, at connect time (so DNS rebinding cannot slip past the check).
 *
 * - Only `http:` and `https:` exist anywhere; no credentials in the URL; at most 2048 chars.
 * - sandbox: http and https; loopback and private addresses are accepted (local receivers).
 * - live: https only; `localhost` (and `*.localhost`) and any private, loopback, link-local,
 *   shared (CGNAT) or unspecified address are refused.
 * - live also refuses the IPv6 forms that reach IPv4 or private networks (DESIGN 8.1):
 *   NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32, unique local
 *   fc00::/7, link-local fe80::/10.
 * - both: link-local (169.254/16 holds cloud metadata services), the AWS IPv6 metadata
 *   address fd00:ec2::254, unspecified (0.0.0.0/8, ::), multicast and reserved/broadcast
 *   addresses are refused: nothing there receives webhooks. IPv4-mapped IPv6
 *   (::ffff:169.254.169.254) is checked as its IPv4 address.
 */
import { BlockList, isIP } from 'node:net';

export type Stage = 'sandbox' | 'live';

export const MAX_URL_LENGTH = 2048;

export const URL_REASONS = {
  invalid: 'must be a valid absolute URL',
  tooLong: `must be at most ${MAX_URL_LENGTH} characters`,
  scheme: 'must use http or https',
  httpsOnly: 'must use https in the live environment',
  credentials: 'must not contain credentials',
  address: 'must not point to a private, loopback or link-local address',
} as const;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

function blockList(ranges: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of ranges) list.addSubnet(net, prefix, isIP(net) === 6 ? 'ipv6' : 'ipv4');
  return list;
}

/** Refused in every stage. IPv4-mapped IPv6 (::ffff:a.b.c.d) matches its IPv4 range. */
const NEVER = blockList([
  ['0.0.0.0', 8], // "this network", 0.0.0.0
  ['169.254.0.0', 16], // link-local (metadata services)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, 255.255.255.255
  ['::', 128], // unspecified
  ['fe80::', 10], // link-local
  ['fd00:ec2::254', 128], // AWS instance metadata over IPv6 (Nitro)
  // 169.254/16 embedded in IPv6 (IPv4-mapped ::ffff:a.b.c.d is matched by the IPv4 rule itself)
  ['::a9fe:0', 112], // IPv4-compatible (deprecated)
  ['64:ff9b::a9fe:0', 112], // NAT64
  ['2002:a9fe::', 32], // 6to4
  ['ff00::', 8], // multicast
]);

/** Also refused in live: private, loopback and other non-public ranges. */
const LIVE_ONLY = blockList([
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['::', 96], // ::1 loopback and the deprecated IPv4-compatible block
  ['fc00::', 7], // unique local
  ['fec0::', 10], // site-local (deprecated)
  ['64:ff9b::', 96], // NAT64 well-known prefix: embeds any IPv4 address
  ['64:ff9b:1::', 48], // NAT64 local-use prefix
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['2001::', 32], // Teredo: embeds an IPv4 address
]);

/** Whether a literal IP address may receive webhooks in `stage`. Non-IPs are refused. */
export function isAddressAllowed(address: string, stage: Stage): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(ip);
  if (family === 0) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (NEVER.check(ip, type)) return false;
  if (stage === 'live' && LIVE_ONLY.check(ip, type)) return false;
  return true;
}

const LOOPBACK = blockList([
  ['127.0.0.0', 8],
  ['::1', 128],
]);

/** 127/8 and ::1 (also as IPv4-mapped IPv6). */
export function isLoopback(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  return family !== 0 && LOOPBACK.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}

/** `localhost`, `foo.localhost` (RFC 6761), with or without the trailing dot. */
export function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** The rules a URL must pass when an endpoint is created (and before each delivery). */
export function checkWebhookUrl(raw: string, stage: Stage): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: URL_REASONS.tooLong };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: URL_REASONS.invalid };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: URL_REASONS.scheme };
  if (stage === 'live' && url.protocol !== 'https:') return { ok: false, reason: URL_REASONS.httpsOnly };
  if (url.username || url.password) return { ok: false, reason: URL_REASONS.credentials };
  const host = url.hostname; // WHATWG-normalised: 0x7f.1 -> 127.0.0.1, [::1] keeps brackets
  if (!host) return { ok: false, reason: URL_REASONS.invalid };
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
    if (!isAddressAllowed(host, stage)) return { ok: false, reason: URL_REASONS.address };
  } else if (stage === 'live' && isLocalhostName(host)) {
    return { ok: false, reason: URL_REASONS.address };
  }
  return { ok: true, url };
}
