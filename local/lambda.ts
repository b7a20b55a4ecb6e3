/** Loads handler modules exactly as Lambda would run them, and fakes only the Lambda context. */
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const FUNCTIONS_DIR = resolve(fileURLToPath(import.meta.url), '../../functions');

type AnyHandler = (event: unknown, context: Context) => Promise<unknown>;
const cache = new Map<string, Promise<AnyHandler>>();

export function loadHandler(modulePath: string): Promise<AnyHandler> {
  let p = cache.get(modulePath);
  if (!p) {
    p = import(/* @vite-ignore */ resolve(FUNCTIONS_DIR, `${modulePath}.ts`)).then((m: { handler?: AnyHandler }) => {
      if (typeof m.handler !== 'function') throw new Error(`functions/${modulePath}.ts exports no handler`);
      return m.handler;
    });
    cache.set(modulePath, p);
  }
  return p;
}

export function lambdaContext(functionName: string, timeoutMs = 30_000): Context {
  const started = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * The handler modules this process has invoked (a test file records which functions it ran:
 * test/support/invocations.ts).
 */
export const invokedModules = new Set<string>();

export async function invoke(modulePath: string, event: unknown, timeoutMs?: number): Promise<unknown> {
  invokedModules.add(modulePath);
  const handler = await loadHandler(modulePath);
  return handler(event, lambdaContext(modulePath.replace(/\//g, '-'), timeoutMs));
}
