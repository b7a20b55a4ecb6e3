/**
 * The IAM check of artifacts mode bites: the same flow passes under the intact
 * synthesized template and fails with AccessDenied once one permission is removed from the
 * policy of the function that serves it. Also: the refusal has AWS's shape (the function's
 * SDK raises AccessDeniedException with AWS's message) and fine-grained conditions
 * (dynamodb:LeadingKeys) are evaluated.
 */
import { DynamoDBClient, PutItemCommand, ScanCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dynamoEndpoint } from '../support/app';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { randomToken } from '../../functions/domain/ids';
import { accessKeyOf, startArtifactsApp, type ArtifactsApp } from '../../local/artifacts/app';
import { assemblyDir } from '../../local/artifacts/assembly';
import { LOCAL_CREDENTIALS } from '../../local/services';
import { splitId } from '../../local/artifacts/template';

const ROUTE = 'POST /v1/operator/participants';
const REMOVED = 'dynamodb:PutItem';

const started: ArtifactsApp[] = [];
const temps: string[] = [];
afterAll(async () => {
  await Promise.allSettled(started.map((a) => a.stop()));
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

async function start(dir: string) {
  const suffix = randomToken(8).toLowerCase();
  const operatorKey = `op_${randomToken(32)}`;
  const app = await startArtifactsApp(
    {
      dynamoEndpoint: await dynamoEndpoint(),
      sqsEndpoint: inject('sqsEndpoint'),
      tableName: `iam-${suffix}`,
      queuePrefix: `iam-${suffix}-`,
      port: 0,
      tickMs: 0,
      env: {
        STAGE: 'sandbox',
        OPERATOR_API_KEY: operatorKey,
        APP_SECRETS: JSON.stringify({ masterKey: randomToken(64) }),
        LOG_LEVEL: 'SILENT',
      },
    },
    { dir },
  );
  started.push(app);
  const createParticipant = () =>
    fetch(`${app.url}/v1/operator/participants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'merchant', name: `Shop ${suffix}`, email: `shop-${suffix}@example.com` }),
    });
  return { app, createParticipant };
}

/** The function serving a route, from the template's API routes. */
const routeFunction = (app: ArtifactsApp, key: string) => {
  const r = app.model.routes.find((x) => x.routeKey === key);
  if (!r) throw new Error(`no route ${key} in the template`);
  return app.model.functions.find((f) => f.id === r.functionId)!;
};

/**
 * A copy of the synthesized sandbox assembly (templates copied, bundles linked) in which the
 * policies of the role of `route`'s function no longer allow `action`.
 */
function assemblyWithout(route: string, action: string, probe: ArtifactsApp): { dir: string; policies: string[] } {
  const src = assemblyDir('sandbox');
  const dir = mkdtempSync(join(tmpdir(), 'idpay-iam-'));
  temps.push(dir);
  for (const e of readdirSync(src)) {
    if (e.startsWith('asset.')) symlinkSync(join(src, e), join(dir, e));
    else cpSync(join(src, e), join(dir, e), { recursive: true });
  }
  const fn = routeFunction(probe, route);
  const [stackName, roleLogicalId] = splitId(fn.roleId);
  const file = join(dir, `${stackName}.template.json`);
  const template = JSON.parse(readFileSync(file, 'utf8'));
  const edited: string[] = [];
  for (const [id, r] of Object.entries<any>(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' || !r.Properties.Roles.some((x: any) => x.Ref === roleLogicalId)) continue;
    for (const st of r.Properties.PolicyDocument.Statement) {
      const actions = [st.Action].flat();
      if (actions.includes(action)) {
        st.Action = actions.filter((a: string) => a !== action);
        edited.push(id);
      }
    }
  }
  writeFileSync(file, JSON.stringify(template));
  return { dir, policies: edited };
}

describe('artifacts mode: IAM from the template', () => {
  it(`${ROUTE} works under the intact template and fails with AccessDenied once its role loses ${REMOVED}`, async () => {
    const intact = await start(assemblyDir('sandbox'));
    const ok = await intact.createParticipant();
    expect(ok.status).toBe(201);
    expect(intact.app.denials).toEqual([]);

    const { dir, policies } = assemblyWithout(ROUTE, REMOVED, intact.app);
    expect(policies.length).toBeGreaterThan(0);
    const broken = await start(dir);
    const res = await broken.createParticipant();
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ success: false, message: 'Internal server error' });
    const fn = routeFunction(broken.app, ROUTE);
    const table = broken.app.model.tables[0]!;
    expect(broken.app.denials).toContainEqual({
      principal: expect.stringMatching(new RegExp(`^arn:aws:sts::000000000000:assumed-role/.+/${fn.name}$`)),
      action: REMOVED,
      resource: table.arn,
    });
    expect(broken.app.denials.every((d) => d.action === REMOVED)).toBe(true);
    // The transaction was refused as a whole: no participant in the broken stack's table.
    const admin = new DynamoDBClient({ endpoint: await dynamoEndpoint(), region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
    const items = await admin.send(new ScanCommand({ TableName: table.name }));
    admin.destroy();
    expect((items.Items ?? []).filter((i) => i.pk?.S?.startsWith('PART#'))).toEqual([]);
  });

  it("refuses in AWS's wire format (the SDK's AccessDeniedException) and evaluates dynamodb:LeadingKeys conditions", async () => {
    const { app } = await start(assemblyDir('sandbox'));
    const table = app.model.tables[0]!;
    const clientFor = (route: string) => {
      const fn = routeFunction(app, route);
      const credentials = { accessKeyId: accessKeyOf(fn), secretAccessKey: 'x', sessionToken: 'x' };
      return {
        fn,
        ddb: new DynamoDBClient({ endpoint: app.awsEndpoint, region: 'us-east-1', credentials, maxAttempts: 1 }),
        sqs: new SQSClient({ endpoint: app.awsEndpoint, region: 'us-east-1', credentials, maxAttempts: 1, useQueueUrlAsEndpoint: false }),
      };
    };
    // A read route: no PutItem at all; UpdateItem only on API-key items (its rate-limit counter).
    const read = clientFor('GET /v1/recurring');
    const put = read.ddb.send(new PutItemCommand({ TableName: table.name, Item: { pk: { S: 'PART#x' }, sk: { S: 'PROFILE' } } }));
    await expect(put).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringMatching(
        new RegExp(
          `^User: arn:aws:sts::000000000000:assumed-role/[^/]+/${read.fn.name} is not authorized to perform: dynamodb:PutItem on resource: ${table.arn} because no identity-based policy allows the dynamodb:PutItem action$`,
        ),
      ),
      $metadata: expect.objectContaining({ httpStatusCode: 400 }),
    });
    const update = (pk: string) =>
      read.ddb.send(
        new UpdateItemCommand({
          TableName: table.name,
          Key: { pk: { S: pk }, sk: { S: 'KEY' } },
          UpdateExpression: 'SET #n = :n',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':n': { N: '1' } },
        }),
      );
    await expect(update('APIKEY#probe')).resolves.toBeDefined();
    await expect(update('PART#probe')).rejects.toMatchObject({ name: 'AccessDeniedException' });

    const queue = app.model.queues[0]!;
    await expect(read.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: '{}' }))).rejects.toMatchObject({
      message: expect.stringContaining(`is not authorized to perform: sqs:SendMessage on resource: ${queue.arn}`),
      $metadata: expect.objectContaining({ httpStatusCode: 403 }),
    });
    read.ddb.destroy();
    read.sqs.destroy();
    expect(app.denials.map((d) => d.action)).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:SendMessage']);
  });
});
