import type { Construct } from 'constructs';
import { WEBHOOK_DEFAULTS } from '../functions/config';

/** A deployment stage. One stack per stage; the stage also decides which routes exist. */
export type StageName = 'sandbox' | 'live';

export const STAGES: readonly StageName[] = ['sandbox', 'live'];

/** Name of the environment variable holding a queue's URL (mirrors `config.queueUrl`). */
export const queueUrlEnv = (queueName: string): string => `QUEUE_URL_${queueName.toUpperCase().replace(/-/g, '_')}`;

/** PascalCase id for construct ids and output names: `webhooks-dlq` -> `WebhooksDlq`. */
export const pascal = (s: string): string =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/**
 * Runtime configuration every deployed function receives: DESIGN 6.8's defaults, and the
 * webhook retries of DESIGN 6.6 (at least 8 attempts over at least 24 h: 13 attempts, ~41 h),
 * which are the code's own defaults too (functions/config.ts `WEBHOOK_DEFAULTS`).
 */
export const RUNTIME_DEFAULTS = {
  APPROVAL_WINDOW_SECONDS: '600',
  WEBHOOK_MAX_ATTEMPTS: String(WEBHOOK_DEFAULTS.maxAttempts),
  WEBHOOK_BACKOFF_BASE_SECONDS: String(WEBHOOK_DEFAULTS.backoffBaseSeconds),
  RATE_LIMIT_PER_MINUTE: '600',
  LOG_LEVEL: 'INFO',
} as const;

type SettingRule = 'seconds' | 'count' | 'logLevel' | 'json' | 'amount' | 'url';

/**
 * The runtime settings an operator may set at deploy time, as context with the variable's own
 * name (`cdk deploy -c APPROVAL_WINDOW_SECONDS=300 -c WEBHOOK_MAX_ATTEMPTS=10`): each becomes
 * that environment variable of every function, over RUNTIME_DEFAULTS. The shard counts
 * (DUE_SHARDS, BALANCE_SHARDS) are not here: they decide where items live, and changing them
 * on a running stage would hide what the old count wrote.
 */
export const RUNTIME_SETTINGS: Record<string, SettingRule> = {
  APPROVAL_WINDOW_SECONDS: 'seconds',
  WEBHOOK_MAX_ATTEMPTS: 'count',
  WEBHOOK_BACKOFF_BASE_SECONDS: 'seconds',
  WEBHOOK_SLOW_LANE_SECONDS: 'seconds',
  WEBHOOK_SECRET_OVERLAP_SECONDS: 'seconds',
  WEBHOOK_RECOVERY_GRACE_SECONDS: 'seconds',
  RATE_LIMIT_PER_MINUTE: 'count',
  RATE_LIMITS: 'json',
  DISCOVERY_DAILY_LIMIT: 'count',
  DISCOVERY_MISS_LIMIT: 'count',
  LOG_LEVEL: 'logLevel',
  PRE_DEBIT_NOTICE_SECONDS: 'seconds',
  DISPUTE_RESPONSE_SECONDS: 'seconds',
  REFUND_AUTO_COMPLETE_SECONDS: 'seconds',
  SANDBOX_BANK_DELAY_SECONDS: 'seconds',
  TEST_CLOCK_BANK_WAIT_SECONDS: 'seconds',
  DASHBOARD_URL: 'url',
  EXPORT_URL_SECONDS: 'seconds',
  EXPORT_RUN_SECONDS: 'seconds',
  WITHDRAWAL_MIN: 'amount',
  WITHDRAWAL_MAX: 'amount',
};

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

/** Why `value` is not a valid value of the setting `name` (undefined when it is). */
export function settingProblem(name: string, value: string): string | undefined {
  const rule = RUNTIME_SETTINGS[name];
  if (!rule) return `is not a runtime setting (known: ${Object.keys(RUNTIME_SETTINGS).join(', ')})`;
  switch (rule) {
    case 'seconds':
      return /^\d{1,9}$/.test(value) ? undefined : 'must be a whole number of seconds';
    case 'count':
      return /^[1-9]\d{0,8}$/.test(value) ? undefined : 'must be a whole number above 0';
    case 'amount':
      return /^\d{1,12}(\.\d{1,2})?$/.test(value) ? undefined : 'must be an amount in major units';
    case 'url':
      return /^https:\/\/[a-z0-9.-]+(:\d+)?$/i.test(value) ? undefined : 'must be an https origin, e.g. https://dashboard.example.com';
    case 'logLevel':
      return LOG_LEVELS.includes(value.toUpperCase()) ? undefined : `must be one of ${LOG_LEVELS.join(', ')}`;
    case 'json':
      try {
        const v = JSON.parse(value) as unknown;
        const ok =
          v !== null &&
          typeof v === 'object' &&
          !Array.isArray(v) &&
          Object.values(v).every((n) => Number.isInteger(n) && (n as number) > 0);
        return ok ? undefined : 'must be a JSON object of positive whole numbers, e.g. {"billing":300}';
      } catch {
        return 'must be JSON, e.g. {"billing":300}';
      }
  }
}

/** The runtime settings found in `source` (context values or an environment), validated. */
export function runtimeSettingsFrom(source: (name: string) => unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(RUNTIME_SETTINGS)) {
    const raw = source(name);
    if (raw === undefined || raw === '') continue;
    const value = String(raw);
    const problem = settingProblem(name, value);
    if (problem) throw new Error(`Setting ${name} ${problem} (got ${JSON.stringify(value)})`);
    out[name] = value;
  }
  return out;
}

export interface AppSettings {
  stage: StageName;
  /** SHA-256 hex of the operator key, or '' (operator API unusable). */
  operatorKeyHash: string;
  /** Optional e-mail address subscribed to the alarm topic. */
  alarmEmail?: string;
  /**
   * Optional custom domain of the dashboard's distribution and its ACM certificate (in
   * us-east-1, as CloudFront requires). Only with a certificate of its own can a distribution
   * refuse TLS below 1.2: on the default `*.cloudfront.net` name CloudFront fixes TLSv1.
   */
  dashboardDomain?: { name: string; certificateArn: string };
  /**
   * Folder of the dashboard's build, relative to the project root unless absolute; deployed when
   * it holds index.html. Unset: nothing deployed (bin/app.ts sets `dashboard/dist` by default).
   */
  dashboardDist?: string;
  /** Runtime settings given at deploy time (`-c NAME=value`, RUNTIME_SETTINGS), over RUNTIME_DEFAULTS. */
  runtime?: Record<string, string>;
  /**
   * The address invitations are sent from (`-c mailFrom=no-reply@example.com`): an Amazon SES
   * e-mail identity is created for it and only the routes that send (MAIL_ROUTES in
   * lib/access.ts) may `ses:SendEmail` from it. Unset: nothing is e-mailed (the invitation's
   * token is still answered to the inviter).
   */
  mailFrom?: string;
}

/**
 * The edge of a stage (lib/edge.ts): CloudFront's web ACLs must be created in us-east-1
 * whatever region the stage is deployed to, so the firewall stack is pinned there.
 */
export const EDGE_REGION = 'us-east-1';

/**
 * Per-stage edge settings. `wafRequestsPer5MinPerIp`: the WAF's rate-based rule blocks a client
 * IP (429) above this many requests in any 5-minute window, across the dashboard and `/v1/*`.
 * It sits above what the app lets one key do (RATE_LIMIT_PER_MINUTE 600, i.e. 3000 in 5 min,
 * answered by the API's own 429) only in live, where one IP (an integrator's NAT, an office)
 * carries several keys and people; the sandbox is for trying things and gets the lower floor.
 */
export const EDGE_SETTINGS: Record<StageName, { wafRequestsPer5MinPerIp: number }> = {
  sandbox: { wafRequestsPer5MinPerIp: 2000 },
  live: { wafRequestsPer5MinPerIp: 6000 },
};

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
  const rawDomain: unknown = scope.node.tryGetContext('dashboardDomain');
  const rawCert: unknown = scope.node.tryGetContext('dashboardCertificateArn');
  if ((rawDomain === undefined) !== (rawCert === undefined)) {
    throw new Error('Contexts "dashboardDomain" and "dashboardCertificateArn" go together (a custom domain needs its certificate)');
  }
  if (
    rawDomain !== undefined &&
    (typeof rawDomain !== 'string' || !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(rawDomain))
  ) {
    throw new Error('Context "dashboardDomain" must be a lowercase DNS name, e.g. dashboard.example.com');
  }
  if (
    rawCert !== undefined &&
    (typeof rawCert !== 'string' || !/^arn:aws:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/.test(rawCert))
  ) {
    throw new Error('Context "dashboardCertificateArn" must be the ARN of an ACM certificate in us-east-1 (CloudFront only takes those)');
  }
  const rawMail: unknown = scope.node.tryGetContext('mailFrom');
  if (rawMail !== undefined && (typeof rawMail !== 'string' || !/^[^@\s]+@[a-z0-9.-]+\.[a-z]{2,63}$/i.test(rawMail))) {
    throw new Error('Context "mailFrom" must be an e-mail address (the invitations\' sender)');
  }
  const rawDist: unknown = scope.node.tryGetContext('dashboardDist');
  if (rawDist !== undefined && (typeof rawDist !== 'string' || rawDist === '')) {
    throw new Error('Context "dashboardDist" must be a folder path');
  }
  return {
    stage: rawStage,
    operatorKeyHash: rawHash,
    alarmEmail: rawEmail,
    dashboardDomain: rawDomain === undefined ? undefined : { name: rawDomain as string, certificateArn: rawCert as string },
    dashboardDist: rawDist,
    runtime: runtimeSettingsFrom((name) => scope.node.tryGetContext(name)),
    ...(rawMail !== undefined ? { mailFrom: rawMail as string } : {}),
  };
}
