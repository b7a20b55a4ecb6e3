/**
 * One DynamoDB Local and one SQS emulator per test run (each test file then creates its
 * own table and queues with unique names, so files run in parallel without sharing data).
 */
import type { TestProject } from 'vitest/node';
import { startDynamo, startSqs } from '../../local/services';
import { ensureDashboardBuilt } from '../../local/dashboard';
import { ensureUserPool, startCognito, type LocalUserPool } from '../../local/cognito';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Every DynamoDB Local of the project: each worker uses one (test/support/app.ts dynamoEndpoint()). */
    dynamoEndpoints: string[];
    sqsEndpoint: string;
    /** The run's Cognito emulator, its sandbox pool and dashboard client, and its data folder (confirmation codes). */
    cognito: LocalUserPool & { endpoint: string; dataDir: string };
  }
}

/** DynamoDB Local instances per project (a project runs at most 2 files at once). */
const DYNAMO_INSTANCES = 2;

export default async function setup(project: TestProject) {
  // The dashboard's browser tests load the built app from the local server (local/dashboard.ts).
  ensureDashboardBuilt();
  // One DynamoDB Local per worker: its GetRecords costs more CPU with every stream record the
  // instance holds, and one instance for a whole project's files saturated a core.
  const dynamos = await Promise.all(Array.from({ length: DYNAMO_INSTANCES }, () => startDynamo()));
  let sqs;
  let cognito;
  try {
    sqs = await startSqs();
    cognito = await startCognito();
    const pool = await ensureUserPool(cognito.endpoint, 'sandbox');
    project.provide('cognito', { ...pool, endpoint: cognito.endpoint, dataDir: cognito.dataDir });
  } catch (e) {
    await cognito?.stop().catch(() => undefined);
    await sqs?.stop().catch(() => undefined);
    await Promise.all(dynamos.map((d) => d.stop()));
    throw e;
  }
  project.provide(
    'dynamoEndpoints',
    dynamos.map((d) => d.endpoint),
  );
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    await cognito.stop().catch(() => undefined);
    await sqs.stop().catch(() => undefined);
    await Promise.all(dynamos.map((d) => d.stop().catch(() => undefined)));
  };
}
