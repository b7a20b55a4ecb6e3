/**
 * One function instance of artifacts mode (a worker thread): loads the function's BUILT
 * bundle with its own module state and the environment the parent gave this thread (the
 * template's), then runs invocations one at a time, as a Lambda instance does. Plain
 * JavaScript so that no TypeScript loader touches the bundle.
 */
import { parentPort, workerData } from 'node:worker_threads';

const { entry, exportName, functionName, memoryMb, arn, logGroup } = workerData;
const mod = await import(entry);
const handler = mod[exportName];
if (typeof handler !== 'function') throw new Error(`Runtime.HandlerNotFound: ${exportName} is not a function of ${entry}`);

parentPort.on('message', async ({ id, event, requestId, deadline }) => {
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: arn,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: logGroup,
    logStreamName: 'local-artifacts',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    const result = await handler(event, context);
    parentPort.postMessage({ id, ok: true, result });
  } catch (e) {
    parentPort.postMessage({ id, ok: false, error: { name: e?.name ?? 'Error', message: String(e?.message ?? e), stack: e?.stack } });
  }
});
parentPort.postMessage({ ready: true });
