/**
 * The local stand-in for Amazon Cognito: cognito-local (a devDependency), run as a child
 * process bound to 127.0.0.1, with the stage's user pool and dashboard client created from
 * the same definition the CDK app uses (functions/identity/pool.ts).
 *
 * cognito-local keeps its data in `<cwd>/.cognito/` (config.json and db/), so the process
 * runs with `cwd` = the data folder: `.local/cognito` for `npm start`, a temporary folder
 * (deleted on stop) for LOCAL_IN_MEMORY=1 and the tests. It signs tokens with a fixed RSA
 * key shipped in the package and serves the JWKS at `<url>/<poolId>/.well-known/jwks.json`;
 * its issuer is `<url>/<poolId>`. It does not send e-mail: a code (sign-up confirmation,
 * resent code, password reset) is printed in a "Code Delivery" box on its output (kept in
 * `emulator.log` in the data folder) and stored with the user; `npm start` prints each new
 * code in one line. The process runs local/cognito-emulator.ts: the package plus the parts of
 * Cognito's API it lacks (ResendConfirmationCode, refresh tokens after an MFA challenge,
 * `origin_jti`).
 */
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
  UpdateUserPoolClientCommand,
  type CreateUserPoolClientCommandInput,
} from '@aws-sdk/client-cognito-identity-provider';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Stage } from '../functions/config';
import { USER_POOL, explicitAuthFlows } from '../functions/identity/pool';
import { LOCAL_CREDENTIALS, freePort, stopChild, type RunningService, waitUntilReady } from './services';

export const COGNITO_LOG_FILE = 'emulator.log';

export interface RunningCognito extends RunningService {
  /** Folder holding `.cognito/` and the emulator's log. */
  dataDir: string;
  logFile: string;
}

/** Starts cognito-local on 127.0.0.1; `dataDir` persists pools and users, otherwise a temporary folder. */
export async function startCognito(
  opts: { dataDir?: string; port?: number; onCode?: (c: DeliveredCode) => void } = {},
): Promise<RunningCognito> {
  const temporary = !opts.dataDir;
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : mkdtempSync(join(tmpdir(), 'idpay-cognito-'));
  mkdirSync(join(dataDir, '.cognito'), { recursive: true });
  const port = opts.port ?? (await freePort());
  const host = '127.0.0.1';
  const endpoint = `http://${host}:${port}`;
  // The issuer must be the URL the emulator is reached at (its default names `localhost`).
  const configFile = join(dataDir, '.cognito', 'config.json');
  const config = existsSync(configFile) ? (JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(configFile, JSON.stringify({ ...config, TokenConfig: { IssuerDomain: endpoint } }, null, 2));

  const bin = fileURLToPath(new URL('./cognito-emulator.ts', import.meta.url));
  const logFile = join(dataDir, COGNITO_LOG_FILE);
  // The emulator writes straight into the log file (no pipe through this process, whose
  // event loop may be busy: a test runner's main process is).
  const logFd = openSync(logFile, 'w');
  const child = spawn(process.execPath, [bin], { cwd: dataDir, env: emulatorEnv(port, host), stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  let exited = false;
  child.on('exit', () => (exited = true));
  // `npm start` echoes each new code in one line.
  const seen = new Set<string>();
  const poll = opts.onCode
    ? setInterval(() => {
        for (const c of deliveredCodes(dataDir)) {
          const key = `${c.purpose} ${c.destination} ${c.code}`;
          if (!seen.has(key)) {
            seen.add(key);
            opts.onCode!(c);
          }
        }
      }, 250)
    : undefined;
  poll?.unref();

  const stop = () =>
    stopChild(child, exited).then(() => {
      if (poll) clearInterval(poll);
      if (temporary) rmSync(dataDir, { recursive: true, force: true });
    });

  try {
    await waitUntilReady(`the Cognito emulator on ${endpoint}`, async () => (await fetch(`${endpoint}/health`)).ok, {
      failed: () => (exited ? `it exited: ${readFileSync(logFile, 'utf8').slice(0, 500)}` : undefined),
      intervalMs: 100,
    });
  } catch (e) {
    child.kill('SIGKILL');
    await stop();
    throw e;
  }
  return { endpoint, dataDir, logFile, stop };
}

export function cognitoClient(endpoint: string): CognitoIdentityProviderClient {
  // The emulator ignores credentials and region; the SDK still wants some.
  return new CognitoIdentityProviderClient({ endpoint, region: 'local', credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
}

export interface LocalUserPool {
  userPoolId: string;
  clientId: string;
  /** The token issuer (`<emulator url>/<poolId>`): COGNITO_ISSUER. */
  issuer: string;
}

/** The dashboard client's settings (pool.ts), in CreateUserPoolClient's words. */
export function dashboardClientInput(stage: Stage, userPoolId: string): CreateUserPoolClientCommandInput {
  const c = USER_POOL.client;
  return {
    UserPoolId: userPoolId,
    ClientName: c.name(stage),
    GenerateSecret: c.generateSecret,
    ExplicitAuthFlows: explicitAuthFlows() as CreateUserPoolClientCommandInput['ExplicitAuthFlows'],
    AccessTokenValidity: c.accessTokenMinutes,
    IdTokenValidity: c.idTokenMinutes,
    RefreshTokenValidity: c.refreshTokenDays,
    TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'days' },
    PreventUserExistenceErrors: c.preventUserExistenceErrors ? 'ENABLED' : 'LEGACY',
    EnableTokenRevocation: c.enableTokenRevocation,
  };
}

/**
 * Creates the stage's pool and dashboard client if missing (found by name), and brings the
 * client's settings up to date otherwise. Safe on every start.
 */
export async function ensureUserPool(endpoint: string, stage: Stage): Promise<LocalUserPool> {
  const client = cognitoClient(endpoint);
  try {
    const name = USER_POOL.name(stage);
    const pools = await client.send(new ListUserPoolsCommand({ MaxResults: 60 }));
    let userPoolId = pools.UserPools?.find((p) => p.Name === name)?.Id;
    if (!userPoolId) {
      const p = USER_POOL.passwordPolicy;
      const created = await client.send(
        new CreateUserPoolCommand({
          PoolName: name,
          UsernameAttributes: [USER_POOL.signInWith],
          AutoVerifiedAttributes: [USER_POOL.verify],
          MfaConfiguration: USER_POOL.mfa,
          Policies: {
            PasswordPolicy: {
              MinimumLength: p.minLength,
              RequireLowercase: p.requireLowercase,
              RequireUppercase: p.requireUppercase,
              RequireNumbers: p.requireDigits,
              RequireSymbols: p.requireSymbols,
              TemporaryPasswordValidityDays: p.tempPasswordValidityDays,
            },
          },
          AdminCreateUserConfig: { AllowAdminCreateUserOnly: !USER_POOL.selfSignUp },
          AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
        }),
      );
      userPoolId = created.UserPool!.Id!;
    }
    const input = dashboardClientInput(stage, userPoolId);
    const clients = await client.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
    let clientId = clients.UserPoolClients?.find((c) => c.ClientName === input.ClientName)?.ClientId;
    if (clientId) {
      const { GenerateSecret: _fixedAtCreation, ...update } = input;
      await client.send(new UpdateUserPoolClientCommand({ ...update, ClientId: clientId }));
    } else {
      clientId = (await client.send(new CreateUserPoolClientCommand(input))).UserPoolClient!.ClientId!;
    }
    return { userPoolId, clientId, issuer: `${endpoint}/${userPoolId}` };
  } finally {
    client.destroy();
  }
}

/** The environment variables the API functions read (the CDK stack sets the same names). */
export function cognitoEnv(pool: LocalUserPool): Record<string, string> {
  return { COGNITO_USER_POOL_ID: pool.userPoolId, COGNITO_CLIENT_ID: pool.clientId, COGNITO_ISSUER: pool.issuer };
}

export interface DeliveredCode {
  destination: string;
  code: string;
  /** What the code is for: confirming a new account, or resetting a forgotten password. */
  purpose: 'sign-up' | 'password reset';
}

/**
 * The codes waiting in the emulator, read from its data files (written before it answers
 * SignUp, ResendConfirmationCode or ForgotPassword): an unconfirmed account's code confirms
 * it, a confirmed account's resets its password. Its console box shows the same code, but its
 * logger may hold the last line back until the next one, so tests and `npm start` read the
 * data instead.
 */
export function deliveredCodes(dataDir: string): DeliveredCode[] {
  const db = join(dataDir, '.cognito', 'db');
  if (!existsSync(db)) return [];
  const out: DeliveredCode[] = [];
  for (const f of readdirSync(db)) {
    if (!f.endsWith('.json') || f === 'clients.json') continue;
    let data: {
      Users?: Record<string, { UserStatus?: string; ConfirmationCode?: string; Attributes?: { Name: string; Value: string }[] }>;
    };
    try {
      data = JSON.parse(readFileSync(join(db, f), 'utf8'));
    } catch {
      continue; // being written
    }
    for (const u of Object.values(data.Users ?? {})) {
      const destination = u.Attributes?.find((a) => a.Name === 'email')?.Value;
      if (!u.ConfirmationCode || !destination) continue;
      out.push({ destination, code: u.ConfirmationCode, purpose: u.UserStatus === 'UNCONFIRMED' ? 'sign-up' : 'password reset' });
    }
  }
  return out;
}

/**
 * The code the emulator "e-mailed" to an address (waits up to `timeoutMs`): a sign-up code by
 * default; `unlike` waits for a new one (after Resend code).
 */
export async function confirmationCode(
  dataDir: string,
  destination: string,
  opts: { timeoutMs?: number; purpose?: DeliveredCode['purpose']; unlike?: string } = {},
): Promise<string> {
  const { timeoutMs = 5000, purpose = 'sign-up', unlike } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = deliveredCodes(dataDir).find((c) => c.destination === destination && c.purpose === purpose && c.code !== unlike);
    if (found) return found.code;
    if (Date.now() > deadline) throw new Error(`no ${purpose} code for ${destination} in ${dataDir}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The emulator's environment: our port and host, no colours, and random codes (an inherited CODE would fix them). */
function emulatorEnv(port: number, host: string): NodeJS.ProcessEnv {
  const { CODE: _fixedCode, ...env } = process.env;
  return { ...env, PORT: String(port), HOST: host, NO_COLOR: '1', FORCE_COLOR: '0' };
}
