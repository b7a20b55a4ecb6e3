import type { Construct } from 'constructs';

/** A deployment stage. One stack per stage; the stage also decides which routes exist. */
export type StageName = 'sandbox' | 'live';

export const STAGES: readonly StageName[] = ['sandbox', 'live'];

/** Name of the environment variable holding a queue's URL (mirrors `config.queueUrl`). */
export const queueUrlEnv = (queueName: string): string =>
  `QUEUE_URL_${queueName.toUpperCase().replace(/-/g, '_')}`;

/** PascalCase id for construct ids and output names: `webhooks-dlq` -> `WebhooksDlq`. */
export const pascal = (s: string): string =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/**
 * Runtime configuration every deployed function receives: DESIGN 6.8's defaults, except
 * WEBHOOK_MAX_ATTEMPTS. With 6.8's 8 attempts and a 60 s base doubling, retries span only
 * ~2.1 h, short of DESIGN 6.6's "at least 8 attempts over at least 24 h"; 12 attempts span
 * ~29 h (the 11th wait capped at SQS's 12 h). The code default stays 8 (6.8).
 */
export const RUNTIME_DEFAULTS = {
  APPROVAL_WINDOW_SECONDS: '600',
  WEBHOOK_MAX_ATTEMPTS: '12',
  WEBHOOK_BACKOFF_BASE_SECONDS: '60',
  RATE_LIMIT_PER_MINUTE: '600',
  LOG_LEVEL: 'INFO',
} as const;

export interface AppSettings {
  stage: StageName;
  /** SHA-256 hex of the operator key, or '' (operator API unusable). */
  operatorKeyHash: string;
  /** Optional e-mail address subscribed to the alarm topic. */
  alarmEmail?: string;
}

/** Reads and validates the app's context (`-c stage=live -c operatorKeyHash=<hex>`). */
export function readSettings(scope: Construct): AppSettings {
  const rawStage: unknown = scope.node.tryGetContext('stage') ?? 'sandbox';
  if (rawStage !== 'sandbox' && rawStage !== 'live') {
    throw new Error(`Context "stage" must be "sandbox" or "live" (got ${JSON.stringify(rawStage)})`);
  }
  const rawHash: unknown = scope.node.tryGetContext('operatorKeyHash') ?? '';
  if (typeof rawHash !== 'string' || (rawHash !== '' && !/^[0-9a-f]{64}$/.test(rawHash))) {
    throw new Error('Context "operatorKeyHash" must be the lowercase SHA-256 hex (64 chars) of the operator key');
  }
  const rawEmail: unknown = scope.node.tryGetContext('alarmEmail');
  if (rawEmail !== undefined && (typeof rawEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(rawEmail))) {
    throw new Error('Context "alarmEmail" must be an e-mail address');
  }
  return { stage: rawStage, operatorKeyHash: rawHash, alarmEmail: rawEmail };
}
