/**
 * The ops CLI's HTTP calls to the API (`listen`, `trigger`, `dlq`): the SDK CLI's own (a key,
 * optionally a merchant a provider acts for, `X-Entity-Id`), and the API's base URL (`--api`,
 * else the running `npm start`'s URL from .local/endpoints.json, else http://127.0.0.1:3000).
 */
import { localStack } from './common';

export { call, must, type Answer, type ApiEvent, type Target } from '../sdk/src/cli/index';

export const apiBase = (api: string | true | undefined) =>
  (typeof api === 'string' ? api : (localStack()?.url ?? 'http://127.0.0.1:3000')).replace(/\/$/, '');

export { sleep } from '../functions/platform/retry';
