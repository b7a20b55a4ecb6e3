/**
 * Exports (DESIGN 8.8): the export item, its reads and its API shape. Writes in
 * exports/store.ts, the job in exports/run.ts.
 *
 * | item | pk | sk | notes |
 * | export | `EXP#<exportId>` | `EXP` | `merchantId`, `kind`, `from`/`to` or `settlementId`, `status` pending → ready \| failed, `rowCount`, `s3Key` (per attempt), due `export.run` while pending |
 */
import type { TransactionStatus } from '../bills/types';
import { config } from '../config';
import { getItem } from '../platform/table';
import { presignGet } from '../platform/s3';

export const EXPORT_KINDS = ['transactions', 'settlement'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_STATUSES = ['pending', 'ready', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

export interface ExportItem {
  pk: string;
  sk: 'EXP';
  exportId: string;
  merchantId: string;
  kind: ExportKind;
  from?: string;
  to?: string;
  /** transactions: only those with this status. */
  transactionStatus?: TransactionStatus;
  settlementId?: string;
  status: ExportStatus;
  rowCount?: number;
  s3Key?: string;
  createdAt: string;
  readyAt?: string;
  failedAt?: string;
  failureReason?: string;
  /** Figures of the runs that produced it (ops): bytes, parts, runs, peak heap and RSS (MB), duration (ms). */
  stats?: Record<string, number>;
  /** Where a run that ran out of its time stopped: the next run continues the same upload from `cursor`. */
  progress?: ExportProgress;
  duePk?: string;
  dueSk?: string;
  [extra: string]: unknown;
}

export interface ExportProgress {
  key: string;
  uploadId: string;
  parts: { n: number; etag: string }[];
  rows: number;
  bytes: number;
  /** The DynamoDB key the next page starts from. */
  cursor: Record<string, unknown>;
  /** `dueClaims` when this was saved: runs that fail after it count from here. */
  claimsAtCheckpoint: number;
  stats: Record<string, number>;
}

/**
 * The file's name as the merchant downloads it (the last segment of its key):
 * `idpay-transactions-<status|all>-<from day|start>-to-<to day|now>.csv`, `idpay-settlement-<id>.csv`.
 */
export function exportFileName(e: Pick<ExportItem, 'kind' | 'from' | 'to' | 'transactionStatus' | 'settlementId' | 'createdAt'>): string {
  if (e.kind === 'settlement') return `idpay-settlement-${e.settlementId}.csv`;
  const day = (iso: string | undefined, otherwise: string) => (iso ? iso.slice(0, 10) : otherwise);
  return `idpay-transactions-${e.transactionStatus ?? 'all'}-${day(e.from, 'start')}-to-${day(e.to, e.createdAt.slice(0, 10))}.csv`;
}

export const exportKey = (exportId: string) => ({ pk: `EXP#${exportId}`, sk: 'EXP' as const });

export const getExport = (exportId: string) => getItem<ExportItem>(exportKey(exportId));

/** The merchant's export, else undefined (another merchant's is invisible). */
export async function getMerchantExport(merchantId: string, exportId: string): Promise<ExportItem | undefined> {
  if (!exportId || exportId.length > 100) return undefined;
  const e = await getExport(exportId);
  return e && e.merchantId === merchantId ? e : undefined;
}

/** The API shape: `url` is a pre-signed GET of the CSV (EXPORT_URL_SECONDS), null until ready. */
export async function toApiExport(
  e: ExportItem,
): Promise<{ exportId: string; status: ExportStatus; rowCount: number | null; url: string | null }> {
  const ready = e.status === 'ready' && e.s3Key !== undefined;
  return {
    exportId: e.exportId,
    status: e.status,
    rowCount: ready ? (e.rowCount ?? 0) : null,
    url: ready ? await presignGet(config.exportsBucket(), e.s3Key!, config.exportUrlSeconds()) : null,
  };
}
