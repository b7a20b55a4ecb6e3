/**
 * Mistakes an integrator makes, each of which must fail to compile under `tsc --strict`
 * with a message that names it (test/docs/sdk-types.test.ts compiles this file against the
 * SDK's sources and checks that every line ending in an "error:" comment has a diagnostic
 * containing <text>, and that no other line has one). Never run.
 */
import { createClient } from '../src/index.js';

const idpay = createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'sk_sandbox_x' });

export async function mistakes(reference: string) {
  // a misspelt optional property of a body
  await idpay.POST('/v1/refunds/initiate', { body: { reference, amount: 10, reasn: 'damaged' } }); // error: 'reasn' does not exist
  // an unknown property of a body
  await idpay.POST('/v1/webhooks/endpoints', { body: { url: 'https://example.com/hooks', secret: 'mine' } }); // error: 'secret' does not exist
  // a value outside an enum of the document
  await idpay.POST('/v1/customer/pay', { body: { lookupPhrases: ['lp'], amount: 10, currency: 'USD', description: 'x' } }); // error: '"USD"' is not assignable
  // a misspelt query parameter, and a value outside a query enum
  await idpay.GET('/v1/transaction-history', { params: { query: { limt: 10 } } }); // error: 'limt' does not exist
  await idpay.GET('/v1/transaction-history', { params: { query: { status: 'paid' } } }); // error: '"paid"' is not assignable
  // a path the API does not have, or not for this method: said on the path
  await idpay.GET('/v1/no-such-path'); // error: '"/v1/no-such-path"' is not assignable to parameter of type 'KnownPath<"get">'
  await idpay.DELETE('/v1/refunds/initiate'); // error: '"/v1/refunds/initiate"' is not assignable to parameter of type 'KnownPath<"delete">'
  // a required body left out
  await idpay.POST('/v1/refunds/initiate', {}); // error: Property 'body' is missing
  // paginate: only list operations, with their own filters
  idpay.paginate('/v1/balance/details'); // error: '"/v1/balance/details"' is not assignable to parameter of type '"/v1/
  idpay.paginate('/v1/events', { params: { query: { typ: 'billing.response' } } }); // error: 'typ' does not exist
  // the right calls compile
  await idpay.POST('/v1/refunds/initiate', { body: { reference, amount: 10, reason: 'damaged' } });
  for await (const event of idpay.paginate('/v1/events', { params: { query: { type: 'billing.response', limit: 50 } } })) {
    if (event.type === 'billing.response') void event.data.status;
  }
}
