/**
 * Events on a laptop, inside this repository: thin wrappers over the SDK's `idpay` CLI
 * (sdk/src/cli/), with the repository's defaults:
 *
 *   npm run ops -- listen --forward-to <url> --key <key> [--api <url>] [--interval <ms>] [--new-secret]
 *     `idpay listen`; the signing secret is kept in .local/listen-secret (LOCAL_DATA_DIR).
 *
 *   npm run ops -- trigger <event type> --key <sandbox key> [--entity <merchant id>] [--api <url>]
 *     `idpay trigger`: causes a real event of that type in the sandbox, through the simulated
 *     bank (the operator creates one with {"type": "bank", "simulated": true}).
 *
 * `--api` defaults to the running `npm start` (its .local/endpoints.json), else
 * http://127.0.0.1:3000. Outside the repository: `npx idpay ...` with IDPAY_API_KEY and IDPAY_API_URL.
 */
import { join } from 'node:path';
import { localPaths } from '../../local/paths';
import { listen, listenSecret, startListener, TRIGGERS, trigger, triggerList, type Listener, type Target } from '../../sdk/src/cli/index';
import { apiBase } from '../api';
import { flags } from '../common';

export { listenSecret, startListener, TRIGGERS, trigger, type Listener };

/** Where `listen` keeps its signing secret in the repository. */
export const listenSecretFile = () => join(localPaths().root, 'listen-secret');

export const commands = {
  listen: async (args: string[]) => {
    const f = flags(args);
    if (typeof f['forward-to'] !== 'string' || typeof f.key !== 'string')
      throw new Error('usage: listen --forward-to <url> --key <key> [--api <url>] [--interval <ms>] [--new-secret]');
    await listen({
      api: apiBase(f.api),
      key: f.key,
      forwardTo: f['forward-to'],
      secretFile: listenSecretFile(),
      newSecret: f['new-secret'] === true,
      intervalMs: typeof f.interval === 'string' ? Number(f.interval) : undefined,
    });
  },
  trigger: async (args: string[]) => {
    const f = flags(args);
    const type = args[0] && !args[0].startsWith('--') ? args[0] : undefined;
    if (!type || typeof f.key !== 'string')
      throw new Error(
        `usage: trigger <event type> --key <sandbox merchant key> [--entity <merchant id> with a provider key] [--api <url>]; types:\n${triggerList()}`,
      );
    const target: Target = { api: apiBase(f.api), key: f.key, ...(typeof f.entity === 'string' ? { entity: f.entity } : {}) };
    console.log(await trigger(type, target));
  },
};
