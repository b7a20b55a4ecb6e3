/**
 * Structured JSON logs, one line per entry on stdout (CloudWatch Logs on Lambda, JSON log
 * format): `{level, timestamp, service, message, ...attributes}` in Powertools Logger's
 * shape, plus, on Lambda, the invocation's `function_request_id`, `cold_start`,
 * `function_name` and `xray_trace_id`; and on every line written while serving an API request,
 * that request's `requestId` (the `X-Request-Id` the API answers with), kept per invocation in
 * AsyncLocalStorage so that concurrent requests of the local server never mix.
 *
 * Only identifiers, statuses and timings are logged: never a key, secret, request body or
 * personal data (test/integration/secrets.test.ts reads every line of a workload).
 *
 * These few lines instead of @aws-lambda-powertools/logger: the same fields for what we log,
 * and 16 KB less in every bundle, which the 400 KB budget has no room for beside Powertools
 * Metrics (measured: docs/decisions/observability.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { config } from '../config';
import { mapStack } from './stack-map';

const LEVELS = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 99 } as const;
type Level = Exclude<keyof typeof LEVELS, 'SILENT'>;

function threshold(): number {
  const l = config.logLevel().toUpperCase() as keyof typeof LEVELS;
  return LEVELS[l] ?? LEVELS.INFO;
}

function serialize(value: unknown): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      stack: value.stack === undefined ? undefined : mapStack(value.stack),
      ...(value.cause ? { cause: serialize(value.cause) } : {}),
    };
  }
  return value;
}

/** What the Lambda runtime says of the current invocation (absent off Lambda). */
interface Invocation {
  function_request_id: string;
  cold_start: boolean;
}
let invocation: Invocation | undefined;
let invocations = 0;

/** The invocation's Lambda context (its request id; the first one of an instance is the cold start). */
export function setLambdaContext(context: { awsRequestId: string }): void {
  invocation = { function_request_id: context.awsRequestId, cold_start: invocations++ === 0 };
}

/** The request being served (its `requestId` is added to every line logged for it). */
const requestContext = new AsyncLocalStorage<{ requestId?: string }>();

/** Runs `fn` in its own log context (one API invocation): what it logs never mixes with another's. */
export function withLogContext<R>(fn: () => R): R {
  return requestContext.run({}, fn);
}

/** Within `withLogContext`: from now on every line carries `requestId`. */
export function setLogRequestId(requestId: string): void {
  const store = requestContext.getStore();
  if (store) store.requestId = requestId;
}

function write(level: Level, message: string, attributes?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold()) return;
  const entry: Record<string, unknown> = {
    level,
    timestamp: new Date().toISOString(),
    service: 'idpay',
    message,
    function_name: process.env.AWS_LAMBDA_FUNCTION_NAME,
    ...invocation,
    xray_trace_id: process.env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1],
    requestId: requestContext.getStore()?.requestId,
  };
  for (const [k, v] of Object.entries(attributes ?? {})) if (v !== undefined) entry[k] = serialize(v);
  const line = JSON.stringify(entry); // undefined fields (off Lambda, outside a request) are left out
  // On Lambda straight to stdout, one JSON object a line, as the function's JSON log format
  // (lib/lambda.ts) keeps it: console.* there would nest our line inside the runtime's own.
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) process.stdout.write(`${line}\n`);
  else if (level === 'ERROR' || level === 'WARN') console.error(line);
  else console.log(line);
}

export const logger = {
  debug: (message: string, attributes?: Record<string, unknown>) => write('DEBUG', message, attributes),
  info: (message: string, attributes?: Record<string, unknown>) => write('INFO', message, attributes),
  warn: (message: string, attributes?: Record<string, unknown>) => write('WARN', message, attributes),
  error: (message: string, attributes?: Record<string, unknown>) => write('ERROR', message, attributes),
  /** Same as setting LOG_LEVEL (read on every entry). */
  setLogLevel: (level: keyof typeof LEVELS) => {
    process.env.LOG_LEVEL = level;
  },
};
