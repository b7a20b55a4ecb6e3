import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where the local stack keeps its data (LOCAL_DATA_DIR, default ./.local). */
export function localPaths() {
  const root = resolve(process.env.LOCAL_DATA_DIR ?? '.local');
  return {
    root,
    dynamo: join(root, 'dynamodb'),
    sqs: join(root, 'sqs'),
    cognito: join(root, 'cognito'),
    operatorKey: join(root, 'operator.key'),
    appSecrets: join(root, 'app-secrets.json'),
    mail: join(root, 'mail'),
    endpoints: join(root, 'endpoints.json'),
    tickState: join(root, 'tick-state'),
    /** Where the poller on the table's stream has read to, per shard (local/streams.ts). */
    streamCheckpoints: join(root, 'stream-checkpoints.json'),
  };
}

/** ENABLED or DISABLED (written by `npm run ops -- tick:pause|tick:resume`). */
export function readLocalTickState(): 'ENABLED' | 'DISABLED' {
  const f = localPaths().tickState;
  return existsSync(f) && readFileSync(f, 'utf8').trim() === 'DISABLED' ? 'DISABLED' : 'ENABLED';
}
