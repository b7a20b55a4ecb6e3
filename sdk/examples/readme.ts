/**
 * The code of sdk/README.md. Each block between `// README:begin <name>` and `// README:end`
 * is copied into the README (dedented) by `npm run sdk:readme`, so every example there
 * compiles against the SDK (`npm run typecheck` covers this file); test/unit/sdk-readme.test.ts
 * fails when the README is stale or an operation group of the OpenAPI document has no
 * example (a block named after the group's tag). The functions only give the blocks their
 * inputs; they are not called.
 */
import { createServer } from 'node:http';
import {
  createClient,
  IdpayError,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type IdpayClient,
  type WebhookEventOf,
} from '../src/index';

declare function logError(fields: Record<string, unknown>): void;
declare function handle(event: WebhookEventOf<'billing.response'>): Promise<void>;

export async function setup() {
  // README:begin setup
  const idpay = createClient({
    baseUrl: 'https://sandbox.api.idpay.example', // locally: http://127.0.0.1:3000 (npm start prints it)
    apiKey: process.env.IDPAY_API_KEY!, // sk_sandbox_... or sk_live_...
    // entityId: 'mer_...',           // a provider acting for one of its merchants (X-Entity-Id)
  });

  const { data, error, response } = await idpay.GET('/v1/balance/details');
  if (error) console.error(response.status, error.message);
  else console.log(data.data);
  // README:end
  return idpay;
}

export async function errors(idpay: IdpayClient, reference: string) {
  // README:begin errors
  try {
    const refund = await unwrap(idpay.POST('/v1/refunds/initiate', { body: { reference, amount: 500 } }));
    console.log(refund.data.refundId, refund.data.status);
  } catch (e) {
    if (!(e instanceof IdpayError)) throw e; // a network error after the retries
    logError({ status: e.status, code: e.code, type: e.type, message: e.message, requestId: e.requestId });
    if (e.code === 'refund_exceeds_refundable') {
      // one code per message (the reference's error table): branch on the code
    } else if (e.type === 'invalid_request_error') {
      // e.message is exact and stable; e.errors lists refused fields
      for (const f of e.errors) console.log(`${f.path}: ${f.message}`);
    } else if (e.type === 'not_found_error') {
      // unknown, or another participant's: the same answer
    } else if (e.type === 'authentication_error' || e.type === 'permission_error') {
      // key revoked or expired, or not allowed for this participant type or role
    }
  }
  // README:end
}

export async function idempotency(idpay: IdpayClient, agreementPhrase: string) {
  // README:begin idempotency
  // Your own key: a retry of this request, even from another process, replays the first answer.
  const bill = await idpay.POST('/v1/customer/bill', {
    body: { agreementPhrases: [agreementPhrase], amount: 1500, currency: 'NGN', description: 'Order 1001' },
    headers: { 'Idempotency-Key': 'order-1001' },
  });
  console.log(bill.response.headers.get('Idempotent-Replayed')); // "true" on a replay
  // README:end
}

export function retries() {
  // README:begin retries
  const patient = createClient({
    baseUrl: 'https://sandbox.api.idpay.example',
    apiKey: process.env.IDPAY_API_KEY!,
    retry: { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 10_000, maxRetryAfterMs: 30_000 },
  });
  const once = createClient({ baseUrl: 'https://sandbox.api.idpay.example', apiKey: process.env.IDPAY_API_KEY!, retry: false });
  // README:end
  return [patient, once];
}

export async function pagingCursor(idpay: IdpayClient) {
  // README:begin paging-cursor
  // Cursor lists: `hasMore`, and `startingAfter` = the id of the last item of the page.
  let startingAfter: string | undefined;
  do {
    const page = await unwrap(idpay.GET('/v1/events', { params: { query: { type: 'billing.response', limit: 100, startingAfter } } }));
    for (const event of page.data.events) console.log(event.id, event.type, event.deliveries.failed);
    startingAfter = page.data.hasMore ? page.data.events.at(-1)?.id : undefined;
  } while (startingAfter);
  // README:end
}

export async function paginate(idpay: IdpayClient) {
  // README:begin paginate
  // Every item of any list, page after page: paginate knows each list's items and cursor.
  for await (const event of idpay.paginate('/v1/events', { params: { query: { type: 'billing.response', limit: 100 } } })) {
    if (event.type === 'billing.response') console.log(event.id, event.data.status, event.data.amount);
  }
  for await (const t of idpay.paginate('/v1/transaction-history', { params: { query: { status: 'succeeded' } } })) {
    console.log(t.reference, t.amount);
  }
  // README:end
}

export async function simulatedBank(operatorKey: string) {
  // README:begin simulated-bank
  // Sandbox: the operator creates a simulated bank; it answers billing intents and payments
  // at once for its magic customers (GET /v1/sandbox/customers lists them).
  const operator = createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: operatorKey });
  const bank = await unwrap(
    operator.POST('/v1/operator/participants', {
      body: { type: 'bank', name: 'Sandbox Bank', email: 'bank@example.com', simulated: true },
    }),
  );
  console.log(bank.data.id, bank.data.simulated, bank.data.apiVersion);
  // README:end
}

export async function pagingOffset(idpay: IdpayClient) {
  // README:begin paging-offset
  // The lists of release 1 also page by `skip` (or `offset`) with a `total` of matches.
  const limit = 100;
  for (let skip = 0; ; skip += limit) {
    const page = await unwrap(idpay.GET('/v1/transaction-history', { params: { query: { status: 'succeeded', limit, skip } } }));
    for (const t of page.data.transactions) console.log(t.reference, t.amount);
    if (skip + limit >= (page.data.total ?? 0)) break;
  }
  // README:end
}

export function webhooks(secret: string) {
  // README:begin webhooks
  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        // the raw body as received, the headers, your endpoint's secret (whsec_...)
        const event = verifyWebhook(Buffer.concat(chunks), req.headers, secret, { toleranceSeconds: 300 });
        res.writeHead(200).end(); // answer fast; deduplicate on event.id (retries and replays reuse it)
        if (event.type === 'billing.response') await handle(event); // typed: event.data.status, .reference, ...
      } catch (e) {
        res.writeHead(e instanceof WebhookVerificationError ? 400 : 500).end();
      }
    });
  }).listen(8080);
  // README:end
}

// ---------------------------------------------------------------------------------------
// One example per operation group (the OpenAPI document's tags).

export async function operator(idpay: IdpayClient) {
  // README:begin Operator
  // with the operator key: a merchant and its first API key (shown only here)
  const created = await unwrap(
    idpay.POST('/v1/operator/participants', { body: { type: 'merchant', name: 'Ada Stores', email: 'ops@ada.example' } }),
  );
  console.log(created.data.id, created.data.apiKey);
  // README:end
}

export async function account(idpay: IdpayClient) {
  // README:begin Account
  const key = await unwrap(idpay.POST('/v1/keys', { body: { name: 'billing server', expiresInDays: 90 } }));
  console.log(key.data.keyId, key.data.apiKey); // the key is shown only here
  const keys = await unwrap(idpay.GET('/v1/keys'));
  console.log(keys.data.keys.map((k) => k.name));
  // README:end
}

export async function bank(idpay: IdpayClient, intent: { customerId: string; entityId: string; lookupPhrase: string; intentId: string }) {
  // README:begin Bank
  // a bank relays its customer's answer to a billing.intent it received
  const answer = await unwrap(
    idpay.POST('/v1/billing/intent-response', {
      body: {
        intentId: intent.intentId,
        customerId: intent.customerId,
        entityId: intent.entityId,
        lookupPhrase: intent.lookupPhrase,
        customerDecision: 'approve_recurring',
        spendingLimits: { single: 50_000, monthly: 200_000 },
      },
    }),
  );
  console.log(answer.message);
  // README:end
}

export async function merchant(idpay: IdpayClient) {
  // README:begin Merchant
  // find the customer, then ask for billing permission (the answer arrives as billing.intent.response)
  const found = await unwrap(idpay.GET('/v1/customer/banks', { params: { query: { email: 'approve.once@sandbox.idpay.test' } } }));
  const lookupPhrase = found.data.banks[0]!.lookupPhrase;
  const intents = await unwrap(
    idpay.POST('/v1/billing/intent', { body: { lookupPhrases: [lookupPhrase], currency: 'NGN', description: 'Monthly box' } }),
  );
  console.log(intents[0]?.message);
  // README:end
}

export async function recurring(idpay: IdpayClient, customerId: string, agreementPhrase: string) {
  // README:begin Recurring schedules
  const schedule = await unwrap(
    idpay.POST('/v1/billing/recurring/create', {
      body: {
        customerId,
        agreementPhrase, // of an approve_recurring decision
        amount: 4500,
        currency: 'NGN',
        frequency: 'monthly',
        startDate: '2027-01-01T09:00:00Z',
        maxBillings: 12,
      },
    }),
  );
  await unwrap(idpay.POST('/v1/recurring/{scheduleId}/pause', { params: { path: { scheduleId: schedule.data.scheduleId } }, body: {} }));
  // README:end
}

export async function transactions(idpay: IdpayClient, reference: string) {
  // README:begin Transactions
  const t = await unwrap(idpay.GET('/v1/transaction-details', { params: { query: { reference } } }));
  console.log(t.data.status, t.data.amount, t.data.refundedAmount);
  // README:end
}

export async function refunds(idpay: IdpayClient, reference: string) {
  // README:begin Refunds
  const refund = await unwrap(idpay.POST('/v1/refunds/initiate', { body: { reference, amount: 500, reason: 'Damaged item' } }));
  const status = await unwrap(idpay.GET('/v1/refunds/{refundId}/status', { params: { path: { refundId: refund.data.refundId } } }));
  console.log(status.data.status); // pending, processing, completed or failed (refund.updated tells you)
  // README:end
}

export async function disputes(idpay: IdpayClient) {
  // README:begin Disputes
  const open = await unwrap(idpay.GET('/v1/disputes', { params: { query: { status: 'needs_response' } } }));
  for (const d of open.data.disputes) {
    // Answer before d.respondBy, or accept: without an answer the dispute is lost
    await unwrap(
      idpay.POST('/v1/disputes/{disputeId}/respond', {
        params: { path: { disputeId: d.disputeId } },
        body: { evidence: { text: 'Signed delivery receipt attached to order 1234' } },
      }),
    );
  }
  // README:end
}

export async function settlements(idpay: IdpayClient) {
  // README:begin Settlements
  const list = await unwrap(idpay.GET('/v1/settlements', { params: { query: { limit: 10 } } }));
  for (const s of list.data.settlements) {
    const one = await unwrap(idpay.GET('/v1/settlements/{id}', { params: { path: { id: s.settlementId } } }));
    console.log(one.data.settlementId, one.data.amount, one.data.lines.length);
  }
  // README:end
}

export async function exportsExample(idpay: IdpayClient) {
  // README:begin Exports
  const started = await unwrap(idpay.POST('/v1/exports', { body: { kind: 'transactions', from: '2026-11-01', to: '2026-11-30' } }));
  let exp = await unwrap(idpay.GET('/v1/exports/{id}', { params: { path: { id: started.data.exportId } } }));
  while (exp.data.status === 'pending') {
    await new Promise((r) => setTimeout(r, 1000));
    exp = await unwrap(idpay.GET('/v1/exports/{id}', { params: { path: { id: started.data.exportId } } }));
  }
  console.log(exp.data.status, exp.data.url); // a CSV, downloadable for 15 minutes
  // README:end
}

export async function provider(idpay: IdpayClient, merchantId: string) {
  // README:begin Provider
  await unwrap(idpay.PATCH('/v1/provider/merchant/trust', { body: { entityId: merchantId, trusted: true, trustLevel: 'enhanced' } }));
  // then act for that merchant: createClient({ baseUrl, apiKey: providerKey, entityId: merchantId })
  // README:end
}

export async function webhookEndpoints(idpay: IdpayClient) {
  // README:begin Webhook endpoints
  const endpoint = await unwrap(
    idpay.POST('/v1/webhooks/endpoints', { body: { url: 'https://shop.example/idpay/webhooks', events: ['billing.response'] } }),
  );
  const secret = endpoint.data.secret; // shown only here: keep it to verify deliveries
  await unwrap(idpay.POST('/v1/webhooks/endpoints/{id}/test', { params: { path: { id: endpoint.data.id } } }));
  const failed = await unwrap(idpay.GET('/v1/webhooks/deliveries', { params: { query: { status: 'failed' } } }));
  console.log(secret.length, failed.data.deliveries.length);
  // README:end
}

export async function search(idpay: IdpayClient) {
  // README:begin Search
  // an id (txn_, breq_, rfd_, sch_, cus_, dec_, evt_, dlv_, stl_, exp_), a customer e-mail or (bank) a clientRef
  const found = await unwrap(idpay.GET('/v1/search', { params: { query: { q: 'ada@example.com' } } }));
  for (const r of found.data.results) console.log(r.kind, r.id, r.title);
  // README:end
}

export async function reports(idpay: IdpayClient) {
  // README:begin Reports
  // one entry per Lagos day (at most 92), zeros included
  const volume = await unwrap(idpay.GET('/v1/reports/volume', { params: { query: { from: '2026-11-01', to: '2026-11-30' } } }));
  for (const d of volume.data.days) console.log(d.date, d.count, d.amount, d.refunded, d.disputed);
  // README:end
}

export async function deliveryAttempts(idpay: IdpayClient, deliveryId: string) {
  // README:begin Webhook deliveries
  // each attempt: the request sent (signatures redacted) and the answer received, bodies cut at 4 KB
  const delivery = await unwrap(idpay.GET('/v1/webhooks/deliveries/{id}', { params: { path: { id: deliveryId } } }));
  for (const a of delivery.data.attempts) console.log(a.at, a.response?.status ?? a.error, a.response?.body);
  // README:end
}

export async function events(idpay: IdpayClient, eventId: string) {
  // README:begin Events
  const event = await unwrap(idpay.GET('/v1/events/{id}', { params: { path: { id: eventId } } }));
  console.log(
    event.data.type,
    event.data.deliveries.map((d) => `${d.endpointId}: ${d.status}`),
  );
  // README:end
}

export async function sandbox(idpay: IdpayClient) {
  // README:begin Sandbox
  // sandbox only: the simulated bank's magic customers, each answering one way
  const magic = await unwrap(idpay.GET('/v1/sandbox/customers'));
  for (const c of magic.data.customers) console.log(c.email, c.description);
  // settle everything now, instead of on the next business day
  await unwrap(idpay.POST('/v1/sandbox/settlements/run', { body: {} }));
  // README:end
}

export async function documentation(idpay: IdpayClient) {
  // README:begin Documentation
  // the OpenAPI document these types come from (public: no key needed)
  const doc = await idpay.GET('/v1/openapi.json');
  console.log(doc.response.status);
  // README:end
}
