/**
 * The `idpay` command (the package's bin) and what the repository's `npm run ops -- listen |
 * trigger` wrap:
 *
 *   idpay listen --forward-to <url> [--interval <ms>] [--new-secret] [--secret-file <path>]
 *   idpay trigger <event type> [--entity <merchant id>]
 *
 * The key comes from `IDPAY_API_KEY` (or `--api-key`), the API from `IDPAY_API_URL` (or
 * `--api-url`; default http://127.0.0.1:3000, the local stack's `npm start`).
 */
import type { Target } from './api.js';
import { defaultSecretFile, listenSecret, startListener } from './listen.js';
import { TRIGGERS, trigger } from './triggers.js';

/** `--name value` flags (and `--flag` booleans). */
export function parseFlags(args: readonly string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) continue;
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out[a.slice(2)] = next;
      i++;
    } else out[a.slice(2)] = true;
  }
  return out;
}

/** The trigger list with what each needs (the usage text of `trigger`). */
export const triggerList = () =>
  Object.entries(TRIGGERS)
    .map(
      ([k, v]) =>
        `  ${k}: ${v.how}${v.needs === 'premium' ? ' [merchant trusted premium]' : v.needs === 'provider' ? ' [provider key, --entity]' : ''}`,
    )
    .join('\n');

export interface ListenCommand {
  api: string;
  key: string;
  forwardTo: string;
  /** Where the signing secret is kept across runs. */
  secretFile: string;
  newSecret?: boolean;
  intervalMs?: number;
  print?: (line: string) => void;
}

/** `listen`: forwards until SIGINT (Ctrl-C), with the kept secret (or a new one). */
export async function listen(o: ListenCommand): Promise<void> {
  const print = o.print ?? ((l: string) => console.log(l));
  const { secret, created } = listenSecret(o.secretFile, o.newSecret === true);
  const l = await startListener({ api: o.api, key: o.key, forwardTo: o.forwardTo, secret, intervalMs: o.intervalMs, print });
  print(created ? `(a new secret, kept in ${o.secretFile})` : `(the secret kept in ${o.secretFile}; --new-secret replaces it)`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => void l.stop().then(resolve)));
}

const USAGE = `usage:
  idpay listen --forward-to <url> [--interval <ms>] [--new-secret] [--secret-file <path>]
  idpay trigger <event type> [--entity <merchant id>]
The key comes from IDPAY_API_KEY (or --api-key), the API from IDPAY_API_URL (or --api-url; default http://127.0.0.1:3000).`;

/** Runs `idpay <args>`; throws an Error whose message is for the user. */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [command, ...rest] = args;
  const f = parseFlags(rest);
  const key = typeof f['api-key'] === 'string' ? f['api-key'] : env.IDPAY_API_KEY;
  const api = (typeof f['api-url'] === 'string' ? f['api-url'] : env.IDPAY_API_URL) || 'http://127.0.0.1:3000';
  if (command === 'listen') {
    if (typeof f['forward-to'] !== 'string' || !key) throw new Error(`listen needs --forward-to and a key (IDPAY_API_KEY)\n${USAGE}`);
    return listen({
      api,
      key,
      forwardTo: f['forward-to'],
      secretFile: typeof f['secret-file'] === 'string' ? f['secret-file'] : defaultSecretFile(env),
      newSecret: f['new-secret'] === true,
      intervalMs: typeof f.interval === 'string' ? Number(f.interval) : undefined,
    });
  }
  if (command === 'trigger') {
    const type = rest[0] && !rest[0].startsWith('--') ? rest[0] : undefined;
    if (!type || !key) throw new Error(`trigger needs an event type and a key (IDPAY_API_KEY); types:\n${triggerList()}`);
    const target: Target = { api, key, ...(typeof f.entity === 'string' ? { entity: f.entity } : {}) };
    console.log(await trigger(type, target));
    return;
  }
  if (command === undefined || command === 'help' || command === '--help') {
    console.log(USAGE);
    return;
  }
  throw new Error(`unknown command "${command}"\n${USAGE}`);
}
