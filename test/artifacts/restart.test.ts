/**
 * `npm start -- --artifacts` starts as often as plain `npm start`: a second start on the data
 * of the first (.local/), with the SQS emulator on another port, finds the queues the first
 * run created (whose stored URLs name the first run's port) and works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dynamoEndpoint } from '../support/app';
import { afterAll, expect, it } from 'vitest';
import { randomToken } from '../../functions/domain/ids';
import { startArtifactsApp } from '../../local/artifacts/app';
import { startSqs } from '../../local/services';

const dataDir = mkdtempSync(join(tmpdir(), 'idpay-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('starts again on the SQS data of an earlier run, the emulator on another port', async () => {
  const suffix = randomToken(8).toLowerCase();
  const operatorKey = `op_${randomToken(32)}`;
  const endpoints: string[] = [];
  for (let run = 1; run <= 2; run++) {
    const sqs = await startSqs({ dataDir });
    endpoints.push(sqs.endpoint);
    try {
      const app = await startArtifactsApp({
        dynamoEndpoint: await dynamoEndpoint(),
        sqsEndpoint: sqs.endpoint,
        tableName: `restart-${suffix}`,
        queuePrefix: `restart-${suffix}-`,
        port: 0,
        tickMs: 0,
        env: {
          STAGE: 'sandbox',
          OPERATOR_API_KEY: operatorKey,
          APP_SECRETS: JSON.stringify({ masterKey: 'k'.repeat(64) }),
          LOG_LEVEL: 'SILENT',
        },
      });
      try {
        const r = await fetch(`${app.url}/v1/operator/participants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'merchant', name: `Shop ${run}`, email: `shop-${suffix}-${run}@example.com` }),
        });
        expect(r.status).toBe(201);
        await app.settle();
      } finally {
        await app.stop();
      }
    } finally {
      await sqs.stop();
    }
  }
  expect(endpoints[0]).not.toBe(endpoints[1]);
});
