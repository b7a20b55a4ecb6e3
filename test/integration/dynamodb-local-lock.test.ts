/**
 * DynamoDB Local's table lock (local/dynamodb/lock-timeout.ts): a write that waits more than
 * 10 s for it is answered 500 "…too long waiting for a lock. This request will succeed in
 * actual DynamoDB API", and nothing is applied. A burst of concurrent transactions on a loaded
 * machine meets it; the SDK's 4 attempts then give up and a handler answers 500 (CI on
 * 1e4e8c3). The local runtime re-sends exactly these answers, in the in-process client and in
 * the artifacts gateway; any other 500 passes through.
 *
 * The real DynamoDB Local serves every request; a pass-through in front of it answers the
 * first N writes of one item with DynamoDB Local's own lock-timeout answer (its exact bytes:
 * status, content type and body as DynamoDB Local 2026-05-28 sends them), because making the
 * real lock wait 10 s takes minutes of a loaded machine.
 */
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../functions/domain/ids';
import { startGateway, type Gateway } from '../../local/artifacts/gateway';
import type { IamPrincipal } from '../../local/artifacts/iam';
import { addLockRetry } from '../../local/dynamodb/lock-timeout';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/services';
import { dynamoEndpoint } from '../support/app';

/** DynamoDB Local's answer when a request waited 10 s for its table's lock (captured from it). */
const LOCK_TIMEOUT_BODY =
  '{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","Message":"This action timed out because it too long waiting for a lock. This request will succeed in actual DynamoDB API"}';
const OTHER_500_BODY = '{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","Message":"Internal server error"}';

const TABLE = `lock-${randomToken(8).toLowerCase()}`;
let upstream: string;
let front: Server;
let frontUrl: string;
/** Per item key (pk): how many more PutItems to refuse, and with which body; requests seen. */
const refuse = new Map<string, { left: number; body: string; seen: number }>();

beforeAll(async () => {
  upstream = await dynamoEndpoint();
  const admin = client(upstream);
  await admin.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
  admin.destroy();
  const up = new URL(upstream);
  front = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const pk = /"pk":\{"S":"([^"]+)"\}/.exec(body.toString('utf8'))?.[1];
      const rule = String(req.headers['x-amz-target']).endsWith('.PutItem') && pk ? refuse.get(pk) : undefined;
      if (rule) rule.seen++;
      if (rule && rule.left > 0) {
        rule.left--;
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': crypto.randomUUID() });
        res.end(rule.body);
        return;
      }
      const r = request({ hostname: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (u) => {
        res.writeHead(u.statusCode ?? 502, u.headers);
        u.pipe(res);
      });
      r.on('error', () => res.destroy());
      r.end(body);
    });
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => front?.close(r));
});

/** A client like a handler's (functions/platform/clients.ts: 4 attempts). */
function client(endpoint: string, credentials = LOCAL_CREDENTIALS) {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials, maxAttempts: 4 });
}

/** The in-process client: a handler's, with what the local apps add (localDynamoSetup). */
function inProcessClient() {
  const c = client(frontUrl);
  addLockRetry(c);
  return c;
}

/** A new item key whose first `times` PutItems are refused with `body`. */
function refused(times: number, body = LOCK_TIMEOUT_BODY) {
  const pk = `item-${randomToken(10)}`;
  const rule = { left: times, body, seen: 0 };
  refuse.set(pk, rule);
  return { pk, rule };
}

const put = (c: DynamoDBClient, pk: string) =>
  c.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: pk }, v: { S: 'written' } } }));
const stored = async (pk: string) => {
  const c = client(upstream);
  try {
    return (await c.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk } }, ConsistentRead: true }))).Item?.v?.S;
  } finally {
    c.destroy();
  }
};

/** After 6 lock timeouts, the write is had at the SDK's first attempt (7 requests) and stored. */
async function expectLockWaitedOut(c: DynamoDBClient) {
  const { pk, rule } = refused(6);
  const out = await put(c, pk);
  expect(out.$metadata.attempts).toBe(1);
  expect(rule.seen).toBe(7);
  expect(await stored(pk)).toBe('written');
  c.destroy();
}

/** Any other 500 reaches the SDK, which gives up after its 4 attempts; nothing is stored. */
async function expectOther500PassedOn(c: DynamoDBClient) {
  const { pk, rule } = refused(5, OTHER_500_BODY);
  const e = await put(c, pk).catch((x: unknown) => x as Error);
  expect((e as Error).name).toBe('InternalServerError');
  expect((e as Error).message).toBe('Internal server error');
  expect(rule.seen).toBe(4);
  expect(await stored(pk)).toBeUndefined();
  c.destroy();
}

describe("DynamoDB Local's lock timeout", () => {
  it('without the local runtime: the SDK gives up after its 4 attempts with the 500 a handler turns into its own 500', async () => {
    const c = client(frontUrl);
    const { pk, rule } = refused(6);
    const e = await put(c, pk).catch((x: unknown) => x as Error & { $metadata: { attempts?: number } });
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).name).toBe('InternalServerError');
    expect((e as Error).message).toContain('too long waiting for a lock');
    expect(rule.seen).toBe(4);
    expect(await stored(pk)).toBeUndefined();
    c.destroy();
  });

  it('the in-process client re-sends it until the write is had, without spending an SDK attempt', async () => {
    await expectLockWaitedOut(inProcessClient());
  });

  it('the in-process client passes any other 500 on to the SDK, which retries it as usual', async () => {
    await expectOther500PassedOn(inProcessClient());
  });

  describe('the artifacts gateway', () => {
    let gw: Gateway;
    const ACCESS_KEY = 'AKIALOCKTEST';
    beforeAll(async () => {
      const anyone = { arn: 'arn:aws:sts::000000000000:assumed-role/lock-test/s', check: async () => ({ allowed: true }) };
      gw = await startGateway({
        region: LOCAL_REGION,
        dynamoEndpoint: frontUrl,
        sqsEndpoint: frontUrl,
        principals: new Map([[ACCESS_KEY, anyone as unknown as IamPrincipal]]),
        tables: (name) => ({ arn: `arn:aws:dynamodb:${LOCAL_REGION}:000000000000:table/${name}`, partitionKey: 'pk' }),
        secrets: new Map(),
      });
    });
    afterAll(async () => gw?.stop());
    const fnClient = () => client(gw.endpoint, { accessKeyId: ACCESS_KEY, secretAccessKey: 'local' });

    it("re-sends it for a function's client (no local middleware in a bundle): the write is had at the SDK's first attempt", async () => {
      await expectLockWaitedOut(fnClient());
    });

    it('passes any other 500 through unchanged', async () => {
      await expectOther500PassedOn(fnClient());
    });
  });
});
