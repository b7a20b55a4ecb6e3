/**
 * The local stand-in for Amazon Cognito: cognito-local (a devDependency), run as a child
 * process bound to 127.0.0.1, with the stage's user pool and dashboard client created from
 * the same definition the CDK app uses (functions/identity/pool.ts).
 *
 * cognito-local keeps its data in `<cwd>/.cognito/` (config.json and db/), so the process
 * runs with `cwd` = the data folder: `.local/cognito` for `npm start`, a temporary folder
 * (deleted on stop) for LOCAL_IN_MEMORY=1 and the tests. It signs tokens with a fixed RSA
 * key shipped in the package and serves the JWKS at `<url>/<poolId>/.well-known/jwks.json`;
 * its issuer is `<url>/<poolId>`. It does not send e-mail: a confirmation code is printed
 * in a "Confirmation Code Delivery" box on its output, which we copy to a log file
 * (`emulator.log` in the data folder) and, for `npm start`, echo in one line.
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
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Stage } from '../functions/config';
import { USER_POOL, explicitAuthFlows } from '../functions/identity/pool';
import { LOCAL_CREDENTIALS, freePort, type RunningService } from './services';

export const COGNITO_LOG_FILE = 'emulator.log';

export interface RunningCognito extends RunningService {
  /** Folder holding `.cognito/` and the emulator's log. */
  dataDir: string;
  logFile: string;
}

/** Starts cognito-local on 127.0.0.1; `dataDir` persists pools and users, otherwise a temporary folder. */
export async function startCognito(opts: { dataDir?: string; port?: number; onCode?: (c: DeliveredCode) => void } = {}): Promise<RunningCognito> {
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

  const bin = join(dirname(createRequire(import.meta.url).resolve('cognito-local/package.json')), 'lib', 'bin', 'start.js');
  const logFile = join(dataDir, COGNITO_LOG_FILE);
  writeFileSync(logFile, '');
  const child = spawn(process.execPath, [bin], {
    cwd: dataDir,
    env: emulatorEnv(port, host),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited = false;
  let output = '';
  child.on('exit', () => (exited = true));
  const onData = (d: Buffer) => {
    const text = stripAnsi(String(d));
    appendFileSync(logFile, text);
    output += text;
    // A box may arrive in pieces: read the complete ones (closed by '╰'), keep the rest.
    const last = output.lastIndexOf('╰');
    if (last >= 0) {
      for (const c of parseCodes(output.slice(0, last))) opts.onCode?.(c);
      output = output.slice(last + 1);
    }
    if (output.length > 65_536) output = output.slice(-4096);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);

  const stop = () =>
    new Promise<void>((res) => {
      const done = () => {
        if (temporary) rmSync(dataDir, { recursive: true, force: true });
        res();
      };
      if (exited) return done();
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(t);
        done();
      });
      child.kill('SIGTERM');
    });

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`cognito-local exited: ${readFileSync(logFile, 'utf8').slice(0, 500)}`);
    }
    try {
      const r = await fetch(`${endpoint}/health`);
      if (r.ok) break;
    } catch {
      /* not yet listening */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await stop();
      throw new Error('cognito-local did not start within 30 s');
    }
    await new Promise((r) => setTimeout(r, 100));
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
}

/** The codes in the emulator's "Confirmation Code Delivery" boxes, oldest first. */
export function parseCodes(log: string): DeliveredCode[] {
  const out: DeliveredCode[] = [];
  for (const box of log.split('Confirmation Code Delivery').slice(1)) {
    const destination = /Destination:\s+(\S+)/.exec(box)?.[1];
    const code = /Code:\s+(\S+)/.exec(box)?.[1];
    if (destination && code) out.push({ destination, code });
  }
  return out;
}

/** The latest code the emulator "sent" to an address (read from its log; waits up to `timeoutMs`). */
export async function latestCode(logFile: string, destination: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = parseCodes(readFileSync(logFile, 'utf8')).filter((c) => c.destination === destination);
    if (found.length) return found[found.length - 1]!.code;
    if (Date.now() > deadline) throw new Error(`no confirmation code for ${destination} in ${logFile}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The emulator's environment: our port and host, no colours, and random codes (an inherited CODE would fix them). */
function emulatorEnv(port: number, host: string): NodeJS.ProcessEnv {
  const { CODE: _fixedCode, ...env } = process.env;
  return { ...env, PORT: String(port), HOST: host, NO_COLOR: '1', FORCE_COLOR: '0' };
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');
