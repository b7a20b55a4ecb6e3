/**
 * Webhook operations (DESIGN 6.6):
 *
 *   npm run ops -- dlq:replay [--queue webhooks] [--limit n] [--quiet]
 *   npm run ops -- deliveries:list [--status failed] [--type t] [--owner id | --key k [--api url]]
 *                                  [--limit n | --all] [--starting-after <delivery id>] [--json]
 *
 * `dlq:replay` moves the messages that are in a queue's DLQ when it starts (at most --limit)
 * back to the queue: receive -> send -> delete (SQS's StartMessageMoveTask does not exist in
 * the local emulator, and this works on AWS too). The webhook worker gives each moved
 * delivery one more attempt; one that fails again goes back to the DLQ, for a later run.
 *
 * `deliveries:list` reads every matching delivery (the table: a scan of the delivery records,
 * all participants' or `--owner`'s, and of the receipts for the pending deliveries no claim has
 * made a record for yet; with `--key`: `GET /v1/webhooks/deliveries` as that participant,
 * page after page by `startingAfter`), sorts them newest first, prints one page (`--limit`,
 * default 50, after `--starting-after`; `--all` for every one) and says how many are left and
 * the command that shows the next page.
 *
 * Where the queues and the table are (first match wins):
 *   1. flags: --queue-url, --dlq-url, --table, and --endpoint-url / --region;
 *   2. --outputs <cdk-outputs.json> [--stack <name>] (written by `cdk deploy --outputs-file`;
 *      keys QueueUrl<Queue>, DlqUrl<Queue>, TableName);
 *   3. --stack <name>: CloudFormation DescribeStacks, if @aws-sdk/client-cloudformation is
 *      installed (it is not a dependency today: use 1 or 2 for a deployed stack);
 *   4. .local/endpoints.json, written by `npm start` (QUEUE_URL_*, TABLE_NAME, and the
 *      AWS_ENDPOINT_URL_* of the local emulators).
 * Credentials and region otherwise come from the shell's standard AWS environment.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scanPages } from '../../functions/platform/table';
import { readFileSync } from 'node:fs';
import { DELIVERY_STATUSES, deliveryKey, unclaimedDelivery, type DeliveryItem } from '../../functions/webhooks/delivery-store';
import { toApiDelivery } from '../../functions/webhooks/delivery-views';
import { RECEIPT_PK_PREFIX, receiptDeliveryIds, receiptOwner, type ReceiptItem } from '../../functions/events/receipts';
import { apiBase, call, must, type Target } from '../api';
import { flags, localStack } from '../common';

type Flags = Record<string, string | true>;

const str = (f: Flags, name: string): string | undefined => (typeof f[name] === 'string' ? (f[name] as string) : undefined);

function positiveInt(f: Flags, name: string, dflt: number): number {
  const raw = str(f, name);
  if (raw === undefined) return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`--${name} must be a positive whole number`);
  return Number(raw);
}

const envName = (queue: string) => `QUEUE_URL_${queue.toUpperCase().replace(/-/g, '_')}`;
const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

interface Resolved {
  values: Record<string, string>;
  /** Emulator endpoints and credentials when the values came from the local stack. */
  local?: Record<string, string>;
  source: string;
}

async function stackOutputs(f: Flags): Promise<Record<string, string> | undefined> {
  const outputsFile = str(f, 'outputs');
  const stack = str(f, 'stack');
  if (outputsFile) {
    const all = JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>;
    const names = Object.keys(all);
    // `cdk deploy --all` writes every stack of the stage; the queue and table outputs are the
    // core stack's (Idpay-<stage>), the only one with a TableName output.
    const withTable = names.filter((n) => all[n]?.TableName);
    const name = stack ?? (names.length === 1 ? names[0] : withTable.length === 1 ? withTable[0] : undefined);
    if (!name || !all[name])
      throw new Error(`--outputs ${outputsFile} holds stacks ${names.join(', ') || '(none)'}: pick one with --stack`);
    return all[name];
  }
  if (!stack) return undefined;
  const moduleName = '@aws-sdk/client-cloudformation';
  let cfn: {
    CloudFormationClient: new (c: object) => { send(c: unknown): Promise<any> };
    DescribeStacksCommand: new (i: object) => unknown;
  };
  try {
    cfn = await import(moduleName);
  } catch {
    throw new Error(
      `--stack needs ${moduleName}, which is not installed. Pass --queue-url/--dlq-url/--table, or --outputs <file> from \`cdk deploy --outputs-file\`.`,
    );
  }
  const out = await new cfn.CloudFormationClient({ region: str(f, 'region') }).send(new cfn.DescribeStacksCommand({ StackName: stack }));
  const outputs = (out.Stacks?.[0]?.Outputs ?? []) as { OutputKey?: string; OutputValue?: string }[];
  return Object.fromEntries(outputs.filter((o) => o.OutputKey && o.OutputValue).map((o) => [o.OutputKey!, o.OutputValue!]));
}

/** Queue URLs / table name in the local `npm start` vocabulary (QUEUE_URL_*, TABLE_NAME). */
async function resolve(f: Flags, queueName: string): Promise<Resolved> {
  const outputs = await stackOutputs(f);
  if (outputs) {
    const values: Record<string, string> = {};
    const q = outputs[`QueueUrl${pascal(queueName)}`];
    const d = outputs[`DlqUrl${pascal(queueName)}`];
    if (q) values[envName(queueName)] = q;
    if (d) values[envName(`${queueName}-dlq`)] = d;
    if (outputs.TableName) values.TABLE_NAME = outputs.TableName;
    return { values, source: `stack ${str(f, 'stack') ?? str(f, 'outputs')}` };
  }
  const local = localStack();
  if (local) return { values: local, local, source: '.local/endpoints.json (npm start)' };
  return { values: {}, source: 'flags' };
}

function sqsClient(f: Flags, r: Resolved): SQSClient {
  const endpoint = str(f, 'endpoint-url') ?? r.local?.AWS_ENDPOINT_URL_SQS ?? process.env.AWS_ENDPOINT_URL_SQS;
  const region = str(f, 'region') ?? r.local?.AWS_REGION ?? process.env.AWS_REGION ?? 'us-east-1';
  return new SQSClient({
    region,
    ...(endpoint ? { endpoint, useQueueUrlAsEndpoint: false } : {}),
    ...(r.local ? { credentials: { accessKeyId: r.local.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: 'local' } } : {}),
  });
}

function dynamoClient(f: Flags, r: Resolved): DynamoDBDocumentClient {
  const endpoint = str(f, 'endpoint-url') ?? r.local?.AWS_ENDPOINT_URL_DYNAMODB;
  const region = str(f, 'region') ?? r.local?.AWS_REGION ?? process.env.AWS_REGION ?? 'us-east-1';
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region,
      ...(endpoint ? { endpoint } : {}),
      ...(r.local ? { credentials: { accessKeyId: r.local.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: 'local' } } : {}),
    }),
  );
}

/** A progress bar on stderr (a line per 10 % when stderr is not a terminal). */
function progress(total: number, quiet: boolean) {
  let lastDecile = -1;
  return (done: number, failed: number, final = false) => {
    if (quiet) return;
    const of = Math.max(total, done + failed);
    const ratio = of ? (done + failed) / of : 1;
    if (process.stderr.isTTY) {
      const width = 30;
      const filled = Math.round(ratio * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done + failed}/${of} (${failed} failed)${final ? '\n' : ''}`,
      );
    } else {
      const decile = Math.floor(ratio * 10);
      if (decile !== lastDecile || final) {
        lastDecile = decile;
        process.stderr.write(`dlq:replay ${done + failed}/${of} (${failed} failed)\n`);
      }
    }
  };
}

export interface ReplaySummary {
  queue: string;
  moved: number;
  failed: number;
  remaining: number;
}

export async function dlqReplay(args: string[]): Promise<ReplaySummary> {
  const f = flags(args);
  const queueName = str(f, 'queue') ?? 'webhooks';
  const limit = positiveInt(f, 'limit', Number.MAX_SAFE_INTEGER);
  const explicit = str(f, 'queue-url') && str(f, 'dlq-url');
  const r: Resolved = explicit ? { values: {}, source: 'flags' } : await resolve(f, queueName);
  const queueUrl = str(f, 'queue-url') ?? r.values[envName(queueName)];
  const dlqUrl = str(f, 'dlq-url') ?? r.values[envName(`${queueName}-dlq`)];
  if (!queueUrl || !dlqUrl) {
    throw new Error(
      `No URLs for queue "${queueName}" and its DLQ (looked in ${r.source}). Pass --queue-url and --dlq-url, --outputs, or start the local stack.`,
    );
  }
  const sqs = sqsClient(f, r);
  try {
    // Only what is in the DLQ now: a message that fails again comes back to the DLQ as a new
    // message, and must not be moved again by this run (that would ping-pong forever).
    const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
    const total = Math.min(limit, Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0));
    const show = progress(total, f.quiet === true);
    let moved = 0;
    let failed = 0;
    let empty = 0;
    show(0, 0);
    while (moved + failed < total) {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: dlqUrl,
          MaxNumberOfMessages: Math.min(10, total - moved - failed),
          WaitTimeSeconds: 1,
          VisibilityTimeout: 60,
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = out.Messages ?? [];
      if (!messages.length) {
        if (++empty >= 2) break;
        continue;
      }
      empty = 0;
      const sent = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({
            Id: String(i),
            MessageBody: m.Body ?? '',
            ...(m.MessageAttributes && Object.keys(m.MessageAttributes).length ? { MessageAttributes: m.MessageAttributes } : {}),
          })),
        }),
      );
      const ok = new Set((sent.Successful ?? []).map((s) => s.Id));
      const toDelete = messages.filter((_, i) => ok.has(String(i)));
      if (toDelete.length) {
        const del = await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: dlqUrl,
            Entries: toDelete.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
        // A copy that could not be deleted reappears in the DLQ; replaying it again is harmless
        // (the worker drops a delivery's superseded or finished copies).
        if (del.Failed?.length) process.stderr.write(`warning: ${del.Failed.length} message(s) sent but not deleted from the DLQ\n`);
      }
      moved += toDelete.length;
      failed += messages.length - toDelete.length; // not sent: visible again in the DLQ after 60 s
      show(moved, failed);
    }
    show(moved, failed, true);
    const after = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: dlqUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const remaining =
      Number(after.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(after.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    const summary: ReplaySummary = { queue: queueName, moved, failed, remaining };
    if (f.quiet !== true) {
      console.log(`dlq:replay ${queueName}: moved ${moved} message(s) back to the queue, ${failed} failed, ${remaining} left in the DLQ`);
    }
    return summary;
  } finally {
    sqs.destroy();
  }
}

const STATUSES: readonly string[] = DELIVERY_STATUSES;

/** A delivery as the API shows it to its participant (toApiDelivery), plus whose it is (unknown through a key). */
type Row = ReturnType<typeof toApiDelivery> & { ownerId?: string };

/** One page of `deliveries:list`: newest first, and how many matching deliveries follow it. */
export interface DeliveryPage {
  rows: Row[];
  /** Every delivery matching the filters. */
  total: number;
  /** Matching deliveries after this page (newest first). */
  more: number;
  /** Pass as `--starting-after` for the next page (undefined: this page is the last). */
  nextStartingAfter?: string;
}

/** Newest first, as the API lists them (its index key is `<createdAt>#<id>`). */
const newestFirst = (a: Row, b: Row) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1);

/**
 * Every matching delivery from the table (ops only; the API lists one participant's through its
 * receipts): one scan of the delivery records and of the receipts. A delivery a receipt names
 * whose record no claim has made yet (its first message is still queued, or the worker cannot
 * claim it) is shown pending, from the receipt (`dlvAt`), as the API shows it.
 */
async function tableDeliveries(f: Flags, filter: { status?: string; type?: string; owner?: string }): Promise<Row[]> {
  const r: Resolved = str(f, 'table') ? { values: {}, source: 'flags' } : await resolve(f, 'webhooks');
  const tableName = str(f, 'table') ?? r.values.TABLE_NAME;
  if (!tableName) throw new Error(`No table name (looked in ${r.source}). Pass --table, --outputs, or start the local stack.`);
  const doc = dynamoClient(f, r);
  const records: DeliveryItem[] = [];
  const receipts: ReceiptItem[] = [];
  try {
    const { pk, sk } = deliveryKey('');
    await scanPages(
      {
        FilterExpression: '(sk = :sk AND begins_with(pk, :pk)) OR (begins_with(pk, :rpk) AND attribute_exists(dlvAt))',
        ExpressionAttributeValues: { ':sk': sk, ':pk': pk, ':rpk': RECEIPT_PK_PREFIX },
      },
      (page) => {
        for (const it of page) {
          if (it.sk === sk) records.push(it as DeliveryItem);
          else receipts.push(it as ReceiptItem);
        }
      },
      { client: () => doc, name: () => tableName },
    );
  } finally {
    doc.destroy();
  }
  const made = new Set(records.map((d) => d.id));
  const matches = (d: { status: string; eventType: string; ownerId: string }) =>
    (!filter.status || d.status === filter.status) &&
    (!filter.type || d.eventType === filter.type) &&
    (!filter.owner || d.ownerId === filter.owner);
  const unclaimed = receipts.flatMap((rc) =>
    receiptDeliveryIds(rc)
      .filter((id) => !made.has(id))
      .flatMap((id) => {
        const d = unclaimedDelivery({ id, eventId: rc.eventId, eventType: rc.type, ownerId: receiptOwner(rc.pk), createdAt: rc.dlvAt! });
        return d ? [d] : [];
      }),
  );
  return [...records, ...unclaimed].filter(matches).map((d) => ({ ...toApiDelivery(d), ownerId: d.ownerId }));
}

/** Every matching delivery of the key's participant, through `GET /v1/webhooks/deliveries` (cursor paging). */
async function apiDeliveries(f: Flags, filter: { status?: string; type?: string }): Promise<Row[]> {
  const target: Target = { api: apiBase(f.api), key: str(f, 'key')! };
  const rows: Row[] = [];
  for (let startingAfter: string | undefined; ; ) {
    const q = new URLSearchParams({
      limit: '100',
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.type ? { type: filter.type } : {}),
      ...(startingAfter ? { startingAfter } : {}),
    });
    const data = must(await call(target, 'GET', `/v1/webhooks/deliveries?${q}`), 'GET /v1/webhooks/deliveries').data as {
      deliveries: Row[];
      hasMore: boolean;
    };
    rows.push(...data.deliveries);
    if (!data.hasMore || data.deliveries.length === 0) return rows;
    startingAfter = data.deliveries.at(-1)!.id;
  }
}

/**
 * The deliveries matching the flags, newest first, one page of them: `--limit` (default 50)
 * after `--starting-after <delivery id>`, or every one with `--all`; and how many follow. With
 * `--key` (and `--api`) through the API as that participant, otherwise from the table (every
 * participant's, or `--owner`'s).
 */
export async function listDeliveries(args: string[]): Promise<DeliveryPage> {
  const f = flags(args);
  const status = str(f, 'status');
  if (status && !STATUSES.includes(status)) throw new Error(`--status must be one of ${STATUSES.join(', ')}`);
  const type = str(f, 'type');
  const owner = str(f, 'owner');
  const limit = f.all === true ? Number.MAX_SAFE_INTEGER : positiveInt(f, 'limit', 50);
  if (str(f, 'key') && owner) throw new Error("--owner and --key do not go together: --key lists the deliveries of that key's participant");
  const all = (str(f, 'key') ? await apiDeliveries(f, { status, type }) : await tableDeliveries(f, { status, type, owner })).sort(
    newestFirst,
  );
  const after = str(f, 'starting-after');
  let from = 0;
  if (after) {
    const at = all.findIndex((d) => d.id === after);
    if (at < 0) throw new Error(`--starting-after ${after}: no such delivery among those listed`);
    from = at + 1;
  }
  const rows = all.slice(from, from + limit);
  const more = all.length - from - rows.length;
  return { rows, total: all.length, more, ...(more > 0 ? { nextStartingAfter: rows.at(-1)!.id } : {}) };
}

/** What `deliveries:list` prints after the table: how many of how many, and how to see the rest. */
export function pageSummary(page: DeliveryPage, args: string[]): string {
  const what = `${str(flags(args), 'status') ?? ''} deliver${page.total === 1 ? 'y' : 'ies'}`.trim();
  const head = `${page.rows.length} of ${page.total} ${what} (newest first)`;
  if (!page.nextStartingAfter) return `${head}; none left.`;
  const rest = args.filter((a, i) => a !== '--starting-after' && args[i - 1] !== '--starting-after');
  return `${head}; ${page.more} more: npm run ops -- deliveries:list ${[...rest, '--starting-after', page.nextStartingAfter].join(' ')} (or --all)`;
}

/** `deliveries:list`: prints a page (a table, or `--json` rows) and says how many are left; returns the page's rows. */
export async function deliveriesList(args: string[]): Promise<Row[]> {
  const page = await listDeliveries(args);
  const f = flags(args);
  if (f.json === true) {
    console.log(JSON.stringify(page.rows, null, 2));
    if (f.quiet !== true) process.stderr.write(`${pageSummary(page, args)}\n`);
  } else if (f.quiet !== true) {
    printTable(page.rows);
    console.log(pageSummary(page, args));
  }
  return page.rows;
}

function printTable(rows: Row[]) {
  if (!rows.length) {
    console.log('no deliveries');
    return;
  }
  const cols = [
    'id',
    'status',
    'attempts',
    'lastStatusCode',
    'lastError',
    'eventType',
    'endpointId',
    'ownerId',
    'createdAt',
    'lastAttemptAt',
  ] as const;
  const cells = rows.map((r) => cols.map((c) => (r[c] === null || r[c] === undefined ? '-' : String(r[c]))));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ');
  console.log(line([...cols]));
  for (const row of cells) console.log(line(row));
}

export const commands: Record<string, (args: string[]) => Promise<void>> = {
  'dlq:replay': async (args) => {
    await dlqReplay(args);
  },
  'deliveries:list': async (args) => {
    await deliveriesList(args);
  },
};
