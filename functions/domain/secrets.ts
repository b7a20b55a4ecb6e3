/**
 * Encryption keys. One master secret comes from configuration: APP_SECRETS (JSON
 * `{"masterKey": "..."}`, local) or APP_SECRETS_ARN (a Secrets Manager secret, on AWS; read
 * once per Lambda instance). Purpose keys are derived from it with HKDF, so each use
 * (agreement phrases, webhook secrets, ...) has its own key and none is ever in code.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

let master: Promise<Buffer> | undefined;
const derived = new Map<string, Buffer>();

async function loadMaster(): Promise<Buffer> {
  let raw = process.env.APP_SECRETS;
  if (!raw && process.env.APP_SECRETS_ARN) {
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: process.env.APP_SECRETS_ARN }));
    raw = out.SecretString;
  }
  if (!raw) throw new Error('No application secret configured (APP_SECRETS or APP_SECRETS_ARN)');
  const parsed = JSON.parse(raw) as { masterKey?: string };
  if (!parsed.masterKey || parsed.masterKey.length < 32) throw new Error('Application secret has no masterKey of 32+ characters');
  return Buffer.from(parsed.masterKey, 'utf8');
}

/** A 32-byte key for one purpose, e.g. 'agreement-phrase', 'webhook-secret'. */
export async function purposeKey(purpose: string): Promise<Buffer> {
  const cacheKey = `${process.env.APP_SECRETS ?? ''}|${process.env.APP_SECRETS_ARN ?? ''}|${purpose}`;
  const hit = derived.get(cacheKey);
  if (hit) return hit;
  master ??= loadMaster();
  let m: Buffer;
  try {
    m = await master;
  } catch (e) {
    master = undefined;
    throw e;
  }
  const key = Buffer.from(hkdfSync('sha256', m, Buffer.alloc(0), Buffer.from(`idpay:${purpose}`), 32));
  derived.set(cacheKey, key);
  return key;
}

/** For tests that switch configuration within one process. */
export function resetSecrets(): void {
  master = undefined;
  derived.clear();
}

/** AES-256-GCM: iv(12) | tag(16) | ciphertext, base64url. `aad` binds the ciphertext to its context. */
export function seal(key: Buffer, plaintext: Buffer | string, aad?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad) cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url');
}

/** Returns undefined for anything tampered, truncated or sealed with another key. */
export function open(key: Buffer, sealed: string, aad?: string): Buffer | undefined {
  try {
    const buf = Buffer.from(sealed, 'base64url');
    if (buf.length < 29) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
    decipher.setAuthTag(buf.subarray(12, 28));
    if (aad) decipher.setAAD(Buffer.from(aad));
    return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/**
 * What a secret this service issues looks like: an API key (`sk_sandbox_...`, `sk_live_...`,
 * domain/api-keys.ts), a webhook signing secret (`whsec_...`, events/signing.ts) or a team
 * invitation token (`idpinv_...`, identity/people-store.ts). Broader
 * than DESIGN 8.1's patterns on purpose (any length): whatever matches is sealed before it is
 * stored (functions/http/idempotency.ts). A new kind of secret adds its prefix HERE.
 */
const SECRET_SHAPED = /(?:sk_(?:sandbox|live)|whsec|idpinv)_[A-Za-z0-9]/;

export const containsSecret = (text: string): boolean => SECRET_SHAPED.test(text);
