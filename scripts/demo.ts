/**
 * `npm run demo`: the whole story on a local stack of its own (DynamoDB Local, the SQS
 * emulator, the API server, pollers and a 500 ms tick), with readable step-by-step output.
 * Every API call goes through the SDK (sdk/: typed client, automatic Idempotency-Key,
 * retries), and every webhook received is verified with the SDK's verifyWebhook before it
 * is printed. Exits non-zero if any step does not behave as expected.
 *
 * A real-style bank is driven by the demo itself from its own webhook receiver: it answers
 * billing.intent with approve_recurring and limits, and authorizes every billing.request.
 * A second merchant integrates against the sandbox's simulated bank alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApp, type LocalApp } from '../local/app';
import { startDynamo, startSqs, type RunningService } from '../local/services';
import { newOperatorKey } from '../functions/domain/api-keys';
import { randomToken } from '../functions/domain/ids';
import { dlqReplay } from '../ops/commands/dlq';
import { createClient, verifyWebhook, WebhookVerificationError, type IdpayClient, type operations } from '../sdk/src/index';

const c = {
  bold: (s: string) => `\x1b[1m${s}\x1b[0m`,
  dim: (s: string) => `\x1b[2m${s}\x1b[0m`,
  green: (s: string) => `\x1b[32m${s}\x1b[0m`,
  cyan: (s: string) => `\x1b[36m${s}\x1b[0m`,
  red: (s: string) => `\x1b[31m${s}\x1b[0m`,
};
let stepNo = 0;
const step = (title: string) => console.log(`\n${c.bold(`${++stepNo}. ${title}`)}`);
const info = (s: string) => console.log(`   ${s}`);
function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(`expected: ${what}`);
}

interface Event {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, any>;
}

/** A participant's webhook receiver: verifies every signature, keeps the events, can fail on purpose. */
class Receiver {
  events: Event[] = [];
  secret = '';
  failing = false;
  onEvent?: (e: Event) => Promise<void>;
  private server!: Server;
  url = '';
  constructor(readonly name: string) {}

  async start() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (this.failing) {
          res.writeHead(500).end();
          console.log(c.dim(`   ← ${this.name} receiver answered 500 (failing on purpose)`));
          return;
        }
        let event: Event;
        try {
          event = verifyWebhook(body, req.headers, this.secret) as Event;
        } catch (e) {
          if (!(e instanceof WebhookVerificationError)) throw e;
          console.log(`   ${c.cyan('⇢ webhook')} to ${this.name}: ${c.red(`SIGNATURE MISMATCH ✗ (${e.code})`)}`);
          res.writeHead(401).end();
          return;
        }
        console.log(
          `   ${c.cyan('⇢ webhook')} to ${this.name}: ${c.bold(event.type)} ${c.dim(event.id)} ${c.green('signature verified ✓')}`,
        );
        res.writeHead(200).end();
        if (!this.events.some((e) => e.id === event.id)) this.events.push(event);
        void this.onEvent?.(event).catch((e) => console.error(c.red(`   ${this.name} handler failed: ${(e as Error).message}`)));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  async waitFor(type: string, pred: (e: Event) => boolean = () => true, timeoutMs = 20_000): Promise<Event> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const e = this.events.find((x) => x.type === type && pred(x));
      if (e) return e;
      if (Date.now() > deadline) throw new Error(`${this.name} did not receive ${type} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

async function main() {
  let dynamo: RunningService | undefined;
  let sqs: RunningService | undefined;
  let app: LocalApp | undefined;
  const receivers: Receiver[] = [];
  const operatorKey = newOperatorKey();
  try {
    console.log(c.bold('idpay demo: starting a local stack (DynamoDB Local, SQS emulator, API, tick)...'));
    dynamo = await startDynamo();
    sqs = await startSqs();
    app = await startApp({
      dynamoEndpoint: dynamo.endpoint,
      sqsEndpoint: sqs.endpoint,
      tableName: 'idpay-demo',
      queuePrefix: 'idpay-demo-',
      port: 0,
      tickMs: 500,
      env: {
        STAGE: 'sandbox',
        OPERATOR_API_KEY: operatorKey,
        APP_SECRETS: JSON.stringify({ masterKey: randomToken(64) }),
        LOG_LEVEL: 'SILENT',
        // short retries so the DLQ step takes seconds, not hours
        WEBHOOK_MAX_ATTEMPTS: '2',
        WEBHOOK_BACKOFF_BASE_SECONDS: '1',
        SANDBOX_BANK_DELAY_SECONDS: '1',
        REFUND_AUTO_COMPLETE_SECONDS: '3600',
      },
    });
    const base = app.url;
    info(`API at ${base}`);

    // One SDK client per API key (a provider acting for a merchant would add `entityId`).
    const clients = new Map<string, IdpayClient>();
    const api = (key: string) => {
      if (!clients.has(key)) clients.set(key, createClient({ baseUrl: base, apiKey: key }));
      return clients.get(key)!;
    };
    /** The answer's body when its status is the expected one (the SDK types `data`/`error` from the document). */
    const expectStatus = async (
      p: Promise<{ response: Response; data?: unknown; error?: unknown }>,
      status: number,
      what: string,
    ): Promise<any> => {
      const r = await p;
      const body = r.data ?? r.error;
      if (r.response.status !== status) throw new Error(`${what}: expected ${status}, got ${r.response.status} ${JSON.stringify(body)}`);
      return body;
    };
    const participant = async (body: operations['operatorCreateParticipant']['requestBody']['content']['application/json']) =>
      (await expectStatus(api(operatorKey).POST('/v1/operator/participants', { body }), 201, `create ${body.type}`)).data as {
        id: string;
        apiKey: string;
      };
    const receiver = async (name: string, key: string) => {
      const r = new Receiver(name);
      await r.start();
      receivers.push(r);
      const ep = await expectStatus(api(key).POST('/v1/webhooks/endpoints', { body: { url: r.url } }), 201, 'webhook endpoint');
      r.secret = ep.data.secret;
      return r;
    };

    step("The operator creates a bank, a provider and the provider's merchant");
    const bank = await participant({ type: 'bank', name: 'Lagos Community Bank', email: 'ops@lcb.example' });
    const provider = await participant({ type: 'provider', name: 'PayRail', email: 'ops@payrail.example' });
    const merchant = await participant({
      type: 'merchant',
      name: 'Mama Put Kitchen',
      email: 'hello@mamaput.example',
      providerId: provider.id,
      bankAccount: { bankName: 'Lagos Community Bank', accountNumber: '0123456789', accountName: 'Mama Put Kitchen Ltd' },
    });
    info(`bank ${bank.id}, provider ${provider.id}, merchant ${merchant.id} (API keys shown once, kept by the demo)`);
    await expectStatus(
      api(operatorKey).PATCH('/v1/operator/providers/{id}', { params: { path: { id: provider.id } }, body: { maxTrustLevel: 'premium' } }),
      200,
      'maxTrustLevel',
    );
    const trust = await expectStatus(
      api(provider.apiKey).PATCH('/v1/provider/merchant/trust', {
        body: { entityId: merchant.id, trusted: true, trustLevel: 'premium', deviceLookupEnabled: true },
      }),
      200,
      'trust',
    );
    info(`the provider trusts its merchant: ${JSON.stringify(trust.data)}`);

    step('Everyone registers a webhook endpoint (secrets shown once)');
    const bankRx = await receiver('bank', bank.apiKey);
    const merchantRx = await receiver('merchant', merchant.apiKey);
    const providerRx = await receiver('provider', provider.apiKey);
    info(`bank → ${bankRx.url}, merchant → ${merchantRx.url}, provider → ${providerRx.url}`);

    // The real-style bank: answers from its own webhook receiver, like a bank's backend would.
    const limits = { single: 50_000, daily: 100_000, monthly: 500_000 };
    bankRx.onEvent = async (e) => {
      if (e.type === 'billing.intent') {
        info(c.dim(`   bank asks customer ${e.data.customerId} … customer approves recurring billing`));
        await expectStatus(
          api(bank.apiKey).POST('/v1/billing/intent-response', {
            body: {
              intentId: e.data.intentId,
              customerId: e.data.customerId,
              entityId: e.data.entityId,
              lookupPhrase: e.data.lookupPhrase,
              customerDecision: 'approve_recurring',
              spendingLimits: limits,
              blockMerchant: false,
            },
          }),
          200,
          'intent-response',
        );
      }
      if (e.type === 'billing.request') {
        info(c.dim(`   bank debits the customer's account for NGN ${e.data.amount} and authorizes`));
        await expectStatus(
          api(bank.apiKey).POST('/v1/billing/bank-response', {
            body: {
              billingRequestId: e.data.billingRequestId,
              action: 'approve_recurring',
              bankTransactionId: `LCB-${randomToken(8)}`,
            },
          }),
          200,
          'bank-response',
        );
      }
    };

    step('The bank onboards customers in a batch (one row is invalid, one a duplicate)');
    const batch = await expectStatus(
      api(bank.apiKey).POST('/v1/bank/customers', {
        body: {
          customers: [
            {
              clientRef: 'C-001',
              firstname: 'Ada',
              lastname: 'Obi',
              email: 'ada.obi@example.com',
              country: 'NG',
              accountNumber: '1000000001',
              reference: 'R-001',
            },
            {
              clientRef: 'C-002',
              firstname: 'Tunde',
              lastname: 'Bello',
              email: 'tunde@example.com',
              country: 'NG',
              accountNumber: '1000000002',
              reference: 'R-002',
            },
            {
              clientRef: 'C-003',
              firstname: 'Bad',
              lastname: 'Row',
              email: 'not-an-email',
              country: 'NG',
              accountNumber: '12',
              reference: 'R-003',
            },
            {
              clientRef: 'C-001',
              firstname: 'Ada',
              lastname: 'Again',
              email: 'ada2@example.com',
              country: 'NG',
              accountNumber: '1000000009',
              reference: 'R-009',
            },
          ],
        },
      }),
      201,
      'customer batch',
    );
    info(`batch ${batch.data.batchId}: ${JSON.stringify(batch.data.summary)}`);
    check(
      batch.data.summary.successful === 2 && batch.data.summary.duplicates === 1 && batch.data.summary.invalidData === 1,
      'batch counts',
    );
    const adaId = batch.data.data.customerIds[0] as string;
    await expectStatus(
      api(bank.apiKey).POST('/v1/bank/customer/device/link', {
        body: { customerId: adaId, deviceId: 'face-7f3a9c', phrase: 'blue kettle' },
      }),
      200,
      'device link',
    );
    info(`device face-7f3a9c linked to customer ${adaId}`);

    step('The merchant finds the customer by device and by email');
    const byDevice = await expectStatus(
      api(merchant.apiKey).POST('/v1/customer/device/lookup', { body: { deviceId: 'face-7f3a9c' } }),
      200,
      'device lookup',
    );
    const byEmail = await expectStatus(
      api(merchant.apiKey).GET('/v1/customer/banks', { params: { query: { email: 'ADA.OBI@example.com' } } }),
      200,
      'email lookup',
    );
    info(`device lookup → ${byDevice.data.lookupPhrase}`);
    info(`email lookup → ${JSON.stringify(byEmail.data.banks)}`);
    const lookupPhrase = byDevice.data.lookupPhrase as string;

    step('The merchant sends a billing intent; the bank answers approve_recurring with limits');
    const intent = await expectStatus(
      api(merchant.apiKey).POST('/v1/billing/intent', {
        body: { lookupPhrases: [lookupPhrase], currency: 'NGN', description: 'Lunch subscription' },
      }),
      200,
      'intent',
    );
    info(`intent → ${JSON.stringify(intent[0])}`);
    await bankRx.waitFor('billing.intent');
    const decisionEvt = await merchantRx.waitFor('billing.intent.response');
    await providerRx.waitFor('billing.intent.response');
    const agreementPhrase = decisionEvt.data.agreementPhrase as string;
    info(
      `decision ${decisionEvt.data.decision}, customerAction ${decisionEvt.data.customerAction}, limits ${JSON.stringify(decisionEvt.data.spendingLimits)}`,
    );
    info(`agreementPhrase ${agreementPhrase.slice(0, 28)}…`);

    step('The merchant bills NGN 2,500; the bank authorizes');
    const billed = await expectStatus(
      api(merchant.apiKey).POST('/v1/customer/bill', {
        body: { agreementPhrases: [agreementPhrase], amount: 2500, currency: 'NGN', description: 'Lunch, week 1' },
      }),
      201,
      'bill',
    );
    const reference = billed[0].reference as string;
    info(`bill → ${reference} (requiresApproval ${billed[0].requiresApproval})`);
    const paid = await merchantRx.waitFor('billing.response', (e) => e.data.reference === reference);
    info(
      `billing.response: status ${paid.data.status}, customerAction ${paid.data.customerAction}, bankTransactionId ${paid.data.bankTransactionId}`,
    );
    check(paid.data.status === 'succeeded', 'the bill succeeded');

    step("A bill above the customer's single limit is refused before the bank is asked");
    const over = await api(merchant.apiKey).POST('/v1/customer/bill', {
      body: { agreementPhrases: [agreementPhrase], amount: 60_000, currency: 'NGN', description: 'Too much' },
    });
    info(`${over.response.status} ${(over.error as any)[0].message}`);
    check(over.response.status === 403, 'limits refusal');

    step('A monthly recurring schedule runs twice');
    const schedule = await expectStatus(
      api(merchant.apiKey).POST('/v1/billing/recurring/create', {
        body: {
          customerId: adaId,
          agreementPhrase,
          amount: 1000,
          currency: 'NGN',
          frequency: 'monthly',
          startDate: new Date().toISOString(),
          maxBillings: 12,
          description: 'Lunch plan',
        },
      }),
      201,
      'recurring create',
    );
    const scheduleId = schedule.data.scheduleId as string;
    info(`schedule ${scheduleId}: ${schedule.data.status}, first billing ${schedule.data.nextBillingDate}`);
    await merchantRx.waitFor('billing.response', (e) => e.data.scheduleId === scheduleId);
    info('run 1 billed and authorized (startDate was now: the tick ran it at once)');
    const waitTotal = async (n: number) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const s = await expectStatus(
          api(merchant.apiKey).GET('/v1/recurring/{scheduleId}', { params: { path: { scheduleId } } }),
          200,
          'schedule read',
        );
        if (s.data.totalBillings >= n && s.data.status === 'active') return s.data;
        if (Date.now() > deadline) throw new Error(`schedule did not reach ${n} billings: ${JSON.stringify(s.data)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await waitTotal(1);
    await expectStatus(
      api(merchant.apiKey).POST('/v1/sandbox/recurring/{scheduleId}/run', { params: { path: { scheduleId } } }),
      200,
      'run now',
    );
    info('sandbox helper: next run due now');
    const after2 = await waitTotal(2);
    info(`totalBillings ${after2.totalBillings}, next billing ${after2.nextBillingDate}`);

    step('The bank is told before each debit (pre-debit notice) and skips the next one for its customer');
    const notice = await bankRx.waitFor('billing.upcoming', (e) => e.data.scheduleId === scheduleId);
    info(
      `billing.upcoming to the bank: NGN ${notice.data.amount} from ${notice.data.merchantName} at ${notice.data.runAt} (run ${notice.data.sequence})`,
    );
    const skipped = await expectStatus(
      api(bank.apiKey).POST('/v1/bank/subscriptions/{scheduleId}/skip', {
        params: { path: { scheduleId } },
        body: { reason: 'Customer is travelling this month' },
      }),
      200,
      'bank skip',
    );
    info(`the bank skipped the run of ${skipped.data.skippedRunAt}; next billing ${skipped.data.nextBillingDate}`);
    const skipEvent = await merchantRx.waitFor('schedule.run_skipped', (e) => e.data.scheduleId === scheduleId);
    info(`the merchant gets schedule.run_skipped: actor ${skipEvent.data.actor}, reason "${skipEvent.data.reason}"`);
    check(skipEvent.data.actor === 'bank' && skipEvent.data.skippedRunAt === skipped.data.skippedRunAt, 'run_skipped names the bank');

    step('Settle what is due, then bill once more (so funds are both settled and unsettled)');
    const settled = await expectStatus(api(merchant.apiKey).POST('/v1/sandbox/settlements/run'), 200, 'settle');
    info(`settlement: ${JSON.stringify(settled.data)}`);
    await merchantRx.waitFor('settlement.completed');
    const billed2 = await expectStatus(
      api(merchant.apiKey).POST('/v1/customer/bill', {
        body: { agreementPhrases: [agreementPhrase], amount: 4000, currency: 'NGN', description: 'Catering' },
      }),
      201,
      'bill 2',
    );
    await merchantRx.waitFor('billing.response', (e) => e.data.reference === billed2[0].reference);

    step('A refund of NGN 500 on the first bill completes');
    const refund = await expectStatus(
      api(merchant.apiKey).POST('/v1/refunds/initiate', { body: { reference, amount: 500, reason: 'Missing drink' } }),
      201,
      'refund',
    );
    info(`refund ${refund.data.refundId}: ${refund.data.status}, expected by ${refund.data.expectedBy}`);
    await bankRx.waitFor('refund.requested');
    await expectStatus(
      api(merchant.apiKey).POST('/v1/sandbox/refunds/{refundId}/complete', { params: { path: { refundId: refund.data.refundId } } }),
      200,
      'refund complete',
    );
    await merchantRx.waitFor('refund.updated', (e) => e.data.status === 'completed');
    const tx = await expectStatus(
      api(merchant.apiKey).GET('/v1/transaction-details', { params: { query: { reference } } }),
      200,
      'details',
    );
    info(`transaction ${reference}: ${tx.data.status}, refunded ${tx.data.refundedAmount} of ${tx.data.amount}`);

    step('A webhook that failed is replayed from the DLQ');
    merchantRx.failing = true;
    const test = await expectStatus(api(merchant.apiKey).GET('/v1/webhooks/endpoints'), 200, 'endpoints');
    const endpointId = test.data.endpoints[0].id as string;
    await expectStatus(
      api(merchant.apiKey).POST('/v1/webhooks/endpoints/{id}/test', { params: { path: { id: endpointId } } }),
      202,
      'test event',
    );
    const failedDeadline = Date.now() + 30_000;
    let failed: any;
    while (!failed) {
      const d = await expectStatus(
        api(merchant.apiKey).GET('/v1/webhooks/deliveries', { params: { query: { status: 'failed' } } }),
        200,
        'deliveries',
      );
      failed = d.data.deliveries.find((x: any) => x.eventType === 'webhook.test');
      if (!failed && Date.now() > failedDeadline) throw new Error('the test delivery did not fail');
      if (!failed) await new Promise((r) => setTimeout(r, 300));
    }
    info(`delivery ${failed.id}: ${failed.status} after ${failed.attempts} attempts → in the DLQ`);
    merchantRx.failing = false;
    const summary = await dlqReplay([
      '--queue',
      'webhooks',
      '--queue-url',
      app.env.QUEUE_URL_WEBHOOKS!,
      '--dlq-url',
      app.env.QUEUE_URL_WEBHOOKS_DLQ!,
      '--quiet',
    ]);
    info(`npm run ops -- dlq:replay → ${JSON.stringify(summary)}`);
    await merchantRx.waitFor('webhook.test');

    step("A second merchant integrates against the sandbox's simulated bank alone");
    const simBank = await participant({ type: 'bank', name: 'Sandbox Bank', email: 'sim@bank.example', simulated: true });
    const shop2 = await participant({ type: 'merchant', name: 'Corner Shop', email: 'corner@shop.example' });
    const shopRx = await receiver('merchant 2', shop2.apiKey);
    const magic = await expectStatus(api(shop2.apiKey).GET('/v1/sandbox/customers'), 200, 'sandbox customers');
    info(
      `${magic.data.customers.length} magic customers, e.g. ${magic.data.customers
        .slice(0, 3)
        .map((x: any) => x.email)
        .join(', ')}`,
    );
    const banks = await expectStatus(
      api(shop2.apiKey).GET('/v1/customer/banks', { params: { query: { email: 'approve.once@sandbox.idpay.test' } } }),
      200,
      'lookup',
    );
    const simPhrase = banks.data.banks.find((b: any) => b.bankId === simBank.id).lookupPhrase as string;
    await expectStatus(
      api(shop2.apiKey).POST('/v1/billing/intent', { body: { lookupPhrases: [simPhrase], currency: 'NGN', description: 'Groceries' } }),
      200,
      'intent 2',
    );
    const simDecision = await shopRx.waitFor('billing.intent.response');
    info(`simulated bank answered ${simDecision.data.decision}`);
    const simBill = await expectStatus(
      api(shop2.apiKey).POST('/v1/customer/bill', {
        body: { agreementPhrases: [simDecision.data.agreementPhrase], amount: 750, currency: 'NGN', description: 'Basket' },
      }),
      201,
      'bill 3',
    );
    const simPaid = await shopRx.waitFor('billing.response', (e) => e.data.reference === simBill[0].reference);
    info(`billing.response: ${simPaid.data.status} (the simulated customer approved)`);

    step("The merchant's balance: settled and unsettled funds");
    const balance = await expectStatus(api(merchant.apiKey).GET('/v1/balance/details'), 200, 'balance');
    const b = balance.data;
    info(`total NGN ${b.totalBalance} = settled ${b.settledBalance} + unsettled ${b.unsettledBalance}`);
    info(`next settlement: NGN ${b.nextSettlement.amount} on ${b.nextSettlement.date}`);
    info(`bank account: ${JSON.stringify(b.bankAccountInfo)}; withdrawals ${JSON.stringify(b.withdrawalInfo)}`);
    check(b.settledBalance > 0 && b.unsettledBalance > 0, 'settled and unsettled funds');
    check(Math.abs(b.totalBalance - (b.settledBalance + b.unsettledBalance)) < 0.001, 'total = settled + unsettled');

    const all = receivers.reduce((n, r) => n + r.events.length, 0);
    console.log(`\n${c.green(c.bold(`Demo complete: ${stepNo} steps, ${all} webhooks received, every signature verified.`))}`);
  } finally {
    for (const r of receivers) await r.close().catch(() => undefined);
    await app?.stop().catch(() => undefined);
    await sqs?.stop().catch(() => undefined);
    await dynamo?.stop().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`\n${c.red(c.bold('Demo failed:'))} ${(e as Error).message}`);
    process.exit(1);
  },
);
