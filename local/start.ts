/**
 * `npm start`: the whole service on this machine with no AWS account (DESIGN 3).
 * Data persists under .local/ (LOCAL_IN_MEMORY=1 for a throwaway run).
 * `npm start -- --artifacts` (or LOCAL_ARTIFACTS=1): the built bundles under their template's
 * environment and IAM policies (local/artifacts/app.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { newOperatorKey } from '../functions/domain/api-keys';
import { randomToken } from '../functions/domain/ids';
import { runtimeSettingsFrom } from '../lib/settings';
import { startApp } from './app';
import { watchMail } from './mail';
import { startDynamo, startSqs } from './services';
import { cognitoEnv, ensureUserPool, startCognito } from './cognito';
import { ensureDashboardBuilt } from './dashboard';
import { localPaths, readLocalTickState } from './paths';
import { loadHandler } from './lambda';
import { ROUTES } from '../functions/routes';

/**
 * Loads every route's handler module once, one after another, right after start: a person's
 * first pages then pay no module loading (each first call of a route took 0.3-1 s of it, and a
 * dashboard page calls up to 9 routes: DESIGN 10.7 wants the first page after approval and a
 * search within 1 s). Deployed, each function's cold start is its own Lambda's.
 */
async function warmHandlers(say: (line: string) => void): Promise<void> {
  const started = Date.now();
  for (const handler of new Set(ROUTES.map((r) => r.handler))) await loadHandler(handler).catch(() => undefined);
  say(`  Handlers loaded (every route) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function main() {
  if (process.argv.includes('--artifacts')) process.env.LOCAL_ARTIFACTS = '1';
  const artifacts = ['1', 'true'].includes(process.env.LOCAL_ARTIFACTS ?? '');
  const paths = localPaths();
  mkdirSync(paths.root, { recursive: true });
  const inMemory = process.env.LOCAL_IN_MEMORY === '1';

  let operatorKey = process.env.OPERATOR_API_KEY;
  if (!operatorKey) {
    if (existsSync(paths.operatorKey)) operatorKey = readFileSync(paths.operatorKey, 'utf8').trim();
    else {
      operatorKey = newOperatorKey();
      writeFileSync(paths.operatorKey, `${operatorKey}\n`, { mode: 0o600 });
    }
  }
  let appSecrets = process.env.APP_SECRETS;
  if (!appSecrets) {
    if (existsSync(paths.appSecrets)) appSecrets = readFileSync(paths.appSecrets, 'utf8').trim();
    else {
      appSecrets = JSON.stringify({ masterKey: randomToken(64) });
      writeFileSync(paths.appSecrets, `${appSecrets}\n`, { mode: 0o600 });
    }
  }

  // The dashboard (served at /dashboard/): built now when missing or older than its sources.
  ensureDashboardBuilt((line) => console.log(line));
  const say = (line: string) => console.log(line);
  const dynamo = await startDynamo({ ...(inMemory ? {} : { dataDir: paths.dynamo }), say });
  const sqs = await startSqs(inMemory ? {} : { dataDir: paths.sqs });
  const cognito = await startCognito({
    ...(inMemory ? {} : { dataDir: paths.cognito }),
    ...(process.env.COGNITO_LOCAL_PORT ? { port: Number(process.env.COGNITO_LOCAL_PORT) } : {}),
    onCode: ({ destination, code, purpose }) => console.log(`  Cognito emulator: ${purpose} code for ${destination}: ${code}`),
  }).catch(async (e: Error) => {
    await sqs.stop().catch(() => undefined);
    await dynamo.stop().catch(() => undefined);
    throw e;
  });
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping...');
    await app?.stop().catch(() => undefined);
    await cognito.stop().catch(() => undefined);
    await sqs.stop().catch(() => undefined);
    await dynamo.stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  const stage = process.env.STAGE === 'live' ? 'live' : 'sandbox';
  try {
    const pool = await ensureUserPool(cognito.endpoint, stage);
    app = await startApp({
      dynamoEndpoint: dynamo.endpoint,
      sqsEndpoint: sqs.endpoint,
      tableName: process.env.TABLE_NAME ?? 'idpay-local',
      queuePrefix: 'idpay-local-',
      port: Number(process.env.PORT ?? 3000),
      tickMs: Number(process.env.LOCAL_TICK_MS ?? 1000),
      tickPaused: () => readLocalTickState() === 'DISABLED',
      mailDir: inMemory ? undefined : paths.mail,
      streamCheckpointFile: inMemory ? undefined : paths.streamCheckpoints,
      env: {
        // Deploy-time settings given to npm start (APPROVAL_WINDOW_SECONDS=5 npm start ...): the
        // handlers read them in-process; artifacts mode synthesizes the template with them.
        ...runtimeSettingsFrom((name) => process.env[name]),
        STAGE: process.env.STAGE ?? 'sandbox',
        OPERATOR_API_KEY: operatorKey,
        APP_SECRETS: appSecrets,
        // Artifacts mode keeps the template's LOG_LEVEL unless one is asked for.
        ...(artifacts && !process.env.LOG_LEVEL ? {} : { LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN' }),
        ...cognitoEnv(pool),
      },
    });
  } catch (e) {
    console.error('Could not start:', (e as Error).message);
    await stop(1);
    return;
  }
  writeFileSync(
    paths.endpoints,
    JSON.stringify(
      { url: app.url, ...app.env, OPERATOR_API_KEY: undefined, APP_SECRETS: undefined, AWS_SECRET_ACCESS_KEY: undefined },
      null,
      2,
    ),
  );
  console.log(
    `idpay local stack (${process.env.STAGE ?? 'sandbox'}${artifacts ? ', artifacts mode: built bundles, template env, IAM checked' : ''}) is running`,
  );
  console.log(`  API:           ${app.url}`);
  console.log(`  Dashboard:     ${app.url}/dashboard/  (sign up there; the operator signs in with the operator key)`);
  console.log(`  Operator key:  ${operatorKey}`);
  console.log(`  Data:          ${inMemory ? 'in memory (LOCAL_IN_MEMORY=1)' : resolve(paths.root)}`);
  console.log(`  DynamoDB:      ${dynamo.endpoint}   SQS: ${sqs.endpoint}`);
  console.log(
    `  Sign-in (Cognito emulator ${cognito.endpoint}): pool ${app.env.COGNITO_USER_POOL_ID}, client ${app.env.COGNITO_CLIENT_ID}`,
  );
  console.log(`    sign up, confirm with the code printed here, sign in (USER_PASSWORD_AUTH): README "Signing in locally"`);
  console.log(`  Try: curl -s -X POST ${app.url}/v1/operator/participants -H "Authorization: Bearer ${operatorKey}" \\`);
  console.log(`         -H 'Content-Type: application/json' -d '{"type":"merchant","name":"Shop","email":"shop@example.com"}'`);
  // E-mail (invitations) goes to a local outbox: each new message's link is printed.
  watchMail(app.mailDir, (m) => console.log(`  E-mail to ${m.to}: ${m.subject}${m.link ? `: ${m.link}` : ''}`));
  console.log('Ctrl-C stops everything.');
  if (!artifacts) void warmHandlers(say);
}

void main();
