/**
 * One Lambda invocation of a worker, observed: the Lambda context on every log line
 * (request id, cold start), and the metrics it stored published at its end,
 * whatever the outcome. The API pipeline does the same in functions/http/endpoint.ts.
 */
import type { Context } from 'aws-lambda';
import { setLambdaContext } from './log';
import { flushMetrics } from './metrics';

/** Attach the invocation's Lambda context to the logs (absent when called off Lambda). */
export function observeInvocation(context: Context | undefined): void {
  if (context?.awsRequestId) setLambdaContext(context);
}

export function observedWorker<E, R>(handler: (event: E, context?: Context) => Promise<R>): (event: E, context?: Context) => Promise<R> {
  return async (event, context) => {
    observeInvocation(context);
    try {
      return await handler(event, context);
    } finally {
      flushMetrics();
    }
  };
}
