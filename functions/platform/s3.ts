/**
 * The little of S3 the exports need — a multipart upload and a pre-signed GET — signed with
 * Signature V4 (`@smithy/signature-v4`, ~14 KB) over `fetch`, instead of
 * `@aws-sdk/client-s3` + `@aws-sdk/lib-storage` (~440 KB minified together: the jobs worker
 * and the export read would both pass the 400 KB bundle budget). docs/decisions/exports.md
 * has the measurements.
 *
 * Endpoint: `AWS_ENDPOINT_URL_S3` (path-style, the local emulator: fauxqs), else the
 * regional virtual-hosted endpoint. Credentials: the function's own (the standard
 * environment variables the Lambda runtime sets; locally the runtime sets them too).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: Data): string | Uint8Array =>
  typeof d === 'string' ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

class Sha256 {
  private readonly h: Hash | Hmac;
  constructor(secret?: Data) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.h.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

const region = () => process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';

function signer(): SignatureV4 {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('S3: no credentials in the environment');
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  return new SignatureV4({
    service: 's3',
    region: region(),
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
}

interface Target {
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
}

/** Where an object lives: path-style on a configured endpoint, virtual-hosted on AWS. */
function target(bucket: string, key: string): Target {
  const encodedKey = key.split('/').map(encodeURIComponent).join('/');
  const custom = process.env.AWS_ENDPOINT_URL_S3;
  if (custom) {
    const u = new URL(custom);
    return { protocol: u.protocol, hostname: u.hostname, ...(u.port ? { port: Number(u.port) } : {}), path: `/${bucket}/${encodedKey}` };
  }
  return { protocol: 'https:', hostname: `${bucket}.s3.${region()}.amazonaws.com`, path: `/${encodedKey}` };
}

const hostHeader = (t: Target) => (t.port ? `${t.hostname}:${t.port}` : t.hostname);

function urlOf(t: Target, query: Record<string, string>): string {
  const qs = new URLSearchParams(query).toString();
  return `${t.protocol}//${hostHeader(t)}${t.path}${qs ? `?${qs}` : ''}`;
}

async function send(
  method: string,
  bucket: string,
  key: string,
  query: Record<string, string>,
  body?: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const t = target(bucket, key);
  const signed = await signer().sign({
    method,
    protocol: t.protocol,
    hostname: t.hostname,
    ...(t.port ? { port: t.port } : {}),
    path: t.path,
    query,
    headers: { host: hostHeader(t), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  const res = await fetch(urlOf(t, query), {
    method,
    headers: signed.headers as Record<string, string>,
    ...(body !== undefined ? { body } : {}),
  });
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    throw new Error(`S3 ${method} ${key}: ${res.status} ${text.slice(0, 200)}`);
  }
  return res;
}

/** A pre-signed GET of one object, valid for `expiresInSeconds`. */
export async function presignGet(bucket: string, key: string, expiresInSeconds: number): Promise<string> {
  const t = target(bucket, key);
  const signed = await signer().presign(
    {
      method: 'GET',
      protocol: t.protocol,
      hostname: t.hostname,
      ...(t.port ? { port: t.port } : {}),
      path: t.path,
      query: {},
      headers: { host: hostHeader(t) },
    },
    { expiresIn: expiresInSeconds },
  );
  return urlOf(t, signed.query as Record<string, string>);
}

/** S3's smallest part but the last. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/**
 * A multipart upload fed part by part: only the part being sent is in memory. `complete`
 * after the last part; `abort` on failure (S3 drops the parts; the bucket's lifecycle rule
 * also aborts incomplete uploads after a day).
 */
export interface UploadState {
  uploadId: string;
  parts: { n: number; etag: string }[];
}

export class MultipartUpload {
  private uploadId?: string;
  private readonly parts: { n: number; etag: string }[] = [];

  constructor(
    readonly bucket: string,
    readonly key: string,
    private readonly contentType = 'text/csv; charset=utf-8',
  ) {}

  /** An upload started earlier (by another invocation): continues after its last part. */
  static resume(bucket: string, key: string, state: UploadState): MultipartUpload {
    const u = new MultipartUpload(bucket, key);
    u.uploadId = state.uploadId;
    u.parts.push(...state.parts);
    return u;
  }

  /** What another invocation needs to continue (uploadId and the parts sent so far). */
  state(): UploadState {
    if (!this.uploadId) throw new Error('upload not started');
    return { uploadId: this.uploadId, parts: [...this.parts] };
  }

  async start(): Promise<void> {
    const res = await send('POST', this.bucket, this.key, { uploads: '' }, undefined, { 'content-type': this.contentType });
    const id = /<UploadId>([^<]+)<\/UploadId>/.exec(await res.text())?.[1];
    if (!id) throw new Error('S3 CreateMultipartUpload: no UploadId');
    this.uploadId = id;
  }

  async uploadPart(body: Uint8Array): Promise<void> {
    if (!this.uploadId) throw new Error('upload not started');
    const n = this.parts.length + 1;
    const res = await send('PUT', this.bucket, this.key, { partNumber: String(n), uploadId: this.uploadId }, body, {
      'content-length': String(body.byteLength),
    });
    const etag = res.headers.get('etag');
    if (!etag) throw new Error(`S3 UploadPart ${n}: no ETag`);
    this.parts.push({ n, etag });
  }

  async complete(): Promise<void> {
    if (!this.uploadId) throw new Error('upload not started');
    const xml = `<CompleteMultipartUpload>${this.parts.map((p) => `<Part><PartNumber>${p.n}</PartNumber><ETag>${p.etag}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
    const res = await send('POST', this.bucket, this.key, { uploadId: this.uploadId }, xml, { 'content-type': 'application/xml' });
    // S3 may answer 200 with an <Error> body when completion fails late.
    const text = await res.text();
    if (/<Error>/.test(text)) throw new Error(`S3 CompleteMultipartUpload: ${text.slice(0, 200)}`);
  }

  async abort(): Promise<void> {
    if (!this.uploadId) return;
    await send('DELETE', this.bucket, this.key, { uploadId: this.uploadId }).catch(() => undefined);
  }
}
