/**
 * The local services of the test run: a fresh DynamoDB Local per test file (dynamo-pool.ts),
 * one SQS emulator and one Cognito emulator (each test file creates its own table and queues
 * with unique names, so files running side by side share no data).
 *
 * Every project on the local stack names this setup; they all run in vitest's one process, so
 * the first project's setup starts the services and the others share them (counted: the last
 * teardown stops them). Worker slots (VITEST_POOL_ID) are numbered across the whole run, so
 * one DynamoDB Local per slot serves every project.
 */
import type { TestProject } from 'vitest/node';
import { startSqs } from '../../local/services';
import { startDynamoPool, type DynamoPool } from './dynamo-pool';
import { ensureDashboardBuilt } from '../../local/dashboard';
import { ensureUserPool, startCognito, type LocalUserPool } from '../../local/cognito';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's DynamoDB Local lease server: a fresh instance per test file (dynamo-pool.ts). */
    dynamoPool: string;
    sqsEndpoint: string;
    /** The run's Cognito emulator, its sandbox pool and dashboard client, and its data folder (confirmation codes). */
    cognito: LocalUserPool & { endpoint: string; dataDir: string };
  }
}

interface Services {
  dynamos: DynamoPool;
  sqs: { endpoint: string; stop(): Promise<void> };
  cognito: { endpoint: string; dataDir: string; stop(): Promise<void> };
  pool: LocalUserPool;
}

/** The run's services and how many project setups share them (vitest's process global). */
const shared = globalThis as { idpayServices?: Promise<Services>; idpayServiceUsers?: number };

async function startServices(slots: number): Promise<Services> {
  // The dashboard's browser tests load the built app from the local server (local/dashboard.ts).
  ensureDashboardBuilt();
  // A fresh DynamoDB Local per test file (dynamo-pool.ts): its GetRecords costs more CPU with
  // every stream record the instance holds.
  const dynamos = await startDynamoPool(slots);
  let sqs: Services['sqs'] | undefined;
  let cognito: Services['cognito'] | undefined;
  try {
    sqs = await startSqs();
    cognito = await startCognito();
    const pool = await ensureUserPool(cognito.endpoint, 'sandbox');
    return { dynamos, sqs, cognito, pool };
  } catch (e) {
    await cognito?.stop().catch(() => undefined);
    await sqs?.stop().catch(() => undefined);
    await dynamos.stop();
    throw e;
  }
}

export default async function setup(project: TestProject) {
  shared.idpayServiceUsers = (shared.idpayServiceUsers ?? 0) + 1;
  // One slot per worker the run may have at once (VITEST_POOL_ID is 1..maxWorkers).
  shared.idpayServices ??= startServices(Math.max(1, project.vitest.config.maxWorkers));
  const s = await shared.idpayServices;
  project.provide('cognito', { ...s.pool, endpoint: s.cognito.endpoint, dataDir: s.cognito.dataDir });
  project.provide('dynamoPool', s.dynamos.url);
  project.provide('sqsEndpoint', s.sqs.endpoint);
  return async () => {
    shared.idpayServiceUsers = (shared.idpayServiceUsers ?? 1) - 1;
    if (shared.idpayServiceUsers > 0) return;
    shared.idpayServices = undefined;
    await s.cognito.stop().catch(() => undefined);
    await s.sqs.stop().catch(() => undefined);
    await s.dynamos.stop().catch(() => undefined);
  };
}
