/**
 * An integrator's ESM program ("type": "module"), compiled under `tsc --strict` against the
 * packed @idpay/sdk installed from its tarball in an empty folder
 * (test/integration/sdk-package.test.ts); it is outside the repository's typecheck, as it
 * compiles only against the installed package. It creates a merchant as the operator,
 * registers a webhook endpoint on its own HTTP server, asks for a test event, verifies the
 * delivery with verifyWebhook, and meets a typed IdpayError. Prints one JSON line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  API_VERSION,
  createClient,
  IdpayError,
  type IdpayClient,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventOf,
} from '@idpay/sdk';

const baseUrl = process.env.IDPAY_URL!;
const operator = createClient({ baseUrl, apiKey: process.env.IDPAY_OPERATOR_KEY! });

async function main() {
  const created = await operator.POST('/v1/operator/participants', {
    body: { type: 'merchant', name: 'Consumer Shop', email: `consumer-${Date.now()}@example.com` },
  });
  if (created.error) throw new Error(`create: ${created.error.message}`);
  const status: number = created.data.statusCode;
  const merchant = created.data.data as { id: string; apiKey: string };

  // The types are the document's: a wrong path, method or body does not compile.
  // @ts-expect-error unknown path
  void operator.GET('/v1/no-such-path');
  // @ts-expect-error `type` must be bank | merchant | provider
  void operator.POST('/v1/operator/participants', { body: { type: 'shop', name: 'x', email: 'x@example.com' } });

  void mistakes; // compiled, never called

  const received: Promise<WebhookEvent> = new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const event = verifyWebhook(Buffer.concat(chunks), req.headers, secret, { toleranceSeconds: 300 });
          res.writeHead(200).end();
          server.close();
          resolve(event);
        } catch (e) {
          res.writeHead(e instanceof WebhookVerificationError ? 400 : 500).end();
          server.close();
          reject(e);
        }
      });
    });
    server.listen(0, '127.0.0.1', () => void register(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`).catch(reject));
  });

  let secret = '';
  const idpay = createClient({ baseUrl, apiKey: merchant.apiKey });
  async function register(url: string) {
    const ep = await idpay.POST('/v1/webhooks/endpoints', { body: { url, events: ['webhook.test'] } });
    if (ep.error) throw new Error(`endpoint: ${ep.error.message}`);
    const endpoint = ep.data.data as { id: string; secret: string };
    secret = endpoint.secret;
    const test = await idpay.POST('/v1/webhooks/endpoints/{id}/test', { params: { path: { id: endpoint.id } } });
    if (test.error) throw new Error(`test: ${test.error.message}`);
  }

  const event = await received;
  if (event.type !== 'webhook.test') throw new Error(`unexpected ${event.type}`);
  const test: WebhookEventOf<'webhook.test'> = event;
  const list = await idpay.GET('/v1/webhooks/deliveries', { params: { query: { type: 'webhook.test', limit: 10 } } });
  // unwrap: the data, or an IdpayError with the answer's status, code, type and requestId
  const refused = await unwrap(idpay.POST('/v1/webhooks/endpoints', { body: { url: 'not a url' } })).then(
    () => undefined,
    (e: unknown) => (e instanceof IdpayError ? { status: e.status, type: e.type, message: e.message, fields: e.errors.length } : e),
  );
  // paginate: every item of a list, typed by the list's item
  const urls: string[] = [];
  for await (const ep of idpay.paginate('/v1/webhooks/endpoints', { params: { query: { limit: 1 } } })) urls.push(ep.url);
  console.log(
    JSON.stringify({
      status,
      merchantId: merchant.id,
      event: test,
      deliveriesStatus: list.response.status,
      refused,
      urls,
      version: API_VERSION,
    }),
  );
}

/** Exact types: each mistake below fails to compile under --strict. */
function mistakes(idpay: IdpayClient) {
  // @ts-expect-error a misspelt optional property
  void idpay.POST('/v1/refunds/initiate', { body: { reference: 'txn_1', reasn: 'damaged' } });
  // @ts-expect-error a currency outside the document's enum
  void idpay.POST('/v1/customer/pay', { body: { lookupPhrases: ['lp'], amount: 1, currency: 'USD', description: 'x' } });
  // @ts-expect-error only list operations paginate
  void idpay.paginate('/v1/balance/details');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
