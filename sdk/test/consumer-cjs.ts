/**
 * An integrator's CommonJS program (package.json without "type": "module"; tsc NodeNext
 * compiles the import below to `require("@idpay/sdk")`, typed by the package's `require`
 * declarations), compiled under `tsc --strict` against the packed @idpay/sdk installed from
 * its tarball (test/integration/sdk-package.test.ts). It creates a merchant as the operator,
 * reads it back through the SDK with the merchant's key, meets a typed IdpayError, and
 * verifies a signed delivery. Prints one JSON line.
 */
import { createHmac } from 'node:crypto';
import { createClient, IdpayError, isIdpayError, unwrap, verifyWebhook, type IdpayErrorType } from '@idpay/sdk';

const baseUrl = process.env.IDPAY_URL!;

async function main() {
  const operator = createClient({ baseUrl, apiKey: process.env.IDPAY_OPERATOR_KEY! });
  const email = `cjs-${Date.now()}@example.com`;
  const created = await unwrap(operator.POST('/v1/operator/participants', { body: { type: 'merchant', name: 'CJS Shop', email } }));
  const merchant = created.data as { id: string; apiKey: string };

  const idpay = createClient({ baseUrl, apiKey: merchant.apiKey });
  const endpoint = await unwrap(idpay.POST('/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/cjs-hooks' } }));
  const listed = await unwrap(idpay.GET('/v1/webhooks/endpoints'));
  const urls = (listed.data as { endpoints: { url: string }[] }).endpoints.map((e) => e.url);

  let error: { status: number; code?: string; type: IdpayErrorType; message: string; requestId?: string } | undefined;
  try {
    await unwrap(idpay.GET('/v1/refunds/{refundId}/status', { params: { path: { refundId: 'ref_doesnotexist' } } }));
  } catch (e) {
    if (!(e instanceof IdpayError) || !isIdpayError(e)) throw e;
    error = { status: e.status, code: e.code, type: e.type, message: e.message, requestId: e.requestId };
  }

  // A delivery signed as the service signs it (Standard Webhooks), verified by the SDK.
  const secret = (endpoint.data as { secret: string }).secret;
  const body = JSON.stringify({ id: 'evt_cjs', type: 'webhook.test', createdAt: new Date().toISOString(), data: { message: 'hi' } });
  const ts = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`evt_cjs.${ts}.${body}`).digest('base64');
  const event = verifyWebhook(body, { 'webhook-id': 'evt_cjs', 'webhook-timestamp': ts, 'webhook-signature': `v1,${signature}` }, secret);

  console.log(JSON.stringify({ module: typeof module, merchantId: merchant.id, email, urls, error, eventType: event.type }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
