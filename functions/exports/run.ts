/**
 * Due kind `export.run` (DESIGN 8.8): writes an export's CSV to S3.
 *
 * Rows come one DynamoDB page (1,000 items) at a time — transactions: the merchant's index
 * between `from` and `to`; settlement: the settlement's lines — and are appended to a buffer
 * that is sent as one part of a multipart upload whenever it reaches 5 MiB at a page end:
 * the job holds one page and one part, never the export (checked by
 * test/reliability/export-100k.test.ts with the peak heap recorded in `stats`).
 *
 * Any size fits the jobs worker's 60 s timeout: after EXPORT_RUN_SECONDS, at the next part
 * boundary (buffer empty), the run saves its place — the upload id, the parts sent, the
 * next page's DynamoDB key — and puts the export back on the due index at once; the next
 * tick continues the same upload. The export becomes `ready` only while the finishing run's
 * claim holds. A run that fails aborts nothing it cannot redo: it leaves the claim to expire
 * and the tick retries from the last saved place; after MAX_RUNS failed claims since then,
 * the upload is aborted and the export is `failed`.
 */
import { config } from '../config';
import { toMajor } from '../domain/money';
import { getSettlement, settlementLinePage, signedLineAmount } from '../ledger/settlement-views';
import type { DueJob } from '../platform/due';
import { logger } from '../platform/log';
import { MIN_PART_BYTES, MultipartUpload } from '../platform/s3';
import { transactionPage, transactionScope } from '../transactions/store';
import { csvRow, SETTLEMENT_COLUMNS, TRANSACTION_COLUMNS } from './csv';
import { checkpointExport, finishExport } from './store';
import { exportFileName, getExport, type ExportItem, type ExportProgress } from './views';

/** Failed claims of one export (since its last saved place) before it is given up. */
export const MAX_RUNS = 3;

const MB = 1024 * 1024;
const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

type Cursor = Record<string, unknown> | undefined;
/** One page of CSV rows from `start`, and where the next page starts. */
type Source = (start: Cursor) => Promise<{ rows: string[]; next: Cursor }>;

async function sourceOf(e: ExportItem): Promise<{ header: readonly string[]; page: Source }> {
  if (e.kind === 'transactions') {
    const filter = { ...(e.from ? { from: new Date(e.from) } : {}), ...(e.to ? { to: new Date(e.to) } : {}) };
    return {
      header: TRANSACTION_COLUMNS,
      page: async (start) => {
        const { transactions, next } = await transactionPage(transactionScope({ kind: 'merchant', id: e.merchantId }), filter, start);
        const kept = e.transactionStatus ? transactions.filter((t) => t.status === e.transactionStatus) : transactions;
        return { rows: kept.map((t) => csvRow(TRANSACTION_COLUMNS.map((c) => t[c]))), next };
      },
    };
  }
  const s = e.settlementId ? await getSettlement(e.settlementId) : undefined;
  if (!s || s.merchantId !== e.merchantId) throw new Error('settlement missing');
  return {
    header: SETTLEMENT_COLUMNS,
    page: async (start) => {
      const { lines, next } = await settlementLinePage(s, start);
      return {
        rows: lines.map((l) => csvRow([s.settlementId, s.businessDate, l.reference, l.type, toMajor(signedLineAmount(l)), s.currency])),
        next,
      };
    },
  };
}

class Sampler {
  peakHeap = 0;
  peakRss = 0;
  sample(): void {
    const m = process.memoryUsage();
    this.peakHeap = Math.max(this.peakHeap, m.heapUsed);
    this.peakRss = Math.max(this.peakRss, m.rss);
  }
}

export async function runExport(job: DueJob): Promise<void> {
  const e = await getExport(job.id);
  if (e?.status !== 'pending' || e.dueSk !== job.leasedSk) return;
  const now = new Date(job.now);
  const claims = Number((e as { dueClaims?: number }).dueClaims ?? 1);
  const saved = e.progress;
  const key = saved?.key ?? `exports/${e.merchantId}/${e.exportId}/run-${claims}/${exportFileName(e)}`;
  const bucket = config.exportsBucket();
  if (claims - (saved?.claimsAtCheckpoint ?? 0) > MAX_RUNS) {
    if (saved) await MultipartUpload.resume(bucket, key, saved).abort();
    await finishExport(e.exportId, job.leasedSk, { status: 'failed', reason: 'The export could not be written; create a new one' }, now);
    return;
  }
  const started = Date.now();
  const mem = new Sampler();
  mem.sample();
  const heapAtStart = process.memoryUsage().heapUsed;
  const upload = saved ? MultipartUpload.resume(bucket, key, saved) : new MultipartUpload(bucket, key);
  let rows = saved?.rows ?? 0;
  let bytes = saved?.bytes ?? 0;
  let buffer: string[] = [];
  let buffered = 0;
  const flush = async () => {
    if (buffered === 0) return;
    const part = Buffer.from(buffer.join(''), 'utf8');
    buffer = [];
    buffered = 0;
    mem.sample();
    await upload.uploadPart(part);
    bytes += part.byteLength;
  };
  const prior = saved?.stats ?? {};
  const stats = () => ({
    bytes,
    parts: upload.state().parts.length,
    runs: (prior.runs ?? 0) + 1,
    peakHeapMb: Math.max(prior.peakHeapMb ?? 0, mb(mem.peakHeap)),
    heapAtStartMb: prior.heapAtStartMb ?? mb(heapAtStart),
    maxHeapGrowthMb: Math.max(prior.maxHeapGrowthMb ?? 0, mb(mem.peakHeap - heapAtStart)),
    peakRssMb: Math.max(prior.peakRssMb ?? 0, mb(mem.peakRss)),
    durationMs: (prior.durationMs ?? 0) + (Date.now() - started),
  });

  try {
    const source = await sourceOf(e);
    if (!saved) {
      await upload.start();
      buffer.push(csvRow(source.header));
      buffered += buffer[0]!.length;
    }
    let cursor: Cursor = saved?.cursor;
    do {
      const page = await source.page(cursor);
      for (const r of page.rows) {
        buffer.push(r);
        buffered += Buffer.byteLength(r);
      }
      rows += page.rows.length;
      cursor = page.next;
      mem.sample();
      if (buffered >= MIN_PART_BYTES) await flush();
      if (cursor && buffered === 0 && Date.now() - started > config.exportRunSeconds() * 1000) {
        // Out of time at a part boundary: save the place; the next tick continues.
        const progress: ExportProgress = { key, ...upload.state(), rows, bytes, cursor, claimsAtCheckpoint: claims, stats: stats() };
        const kept = await checkpointExport(job, progress, now);
        logger.info('export run paused', { exportId: e.exportId, rows, parts: progress.parts.length, kept });
        return;
      }
    } while (cursor);
    await flush();
    await upload.complete();
  } catch (err) {
    logger.error('export run failed', { exportId: e.exportId, run: claims, error: (err as Error).message });
    throw err; // the claim expires and the tick runs it again from the last saved place (up to MAX_RUNS)
  }
  const final = stats();
  const won = await finishExport(e.exportId, job.leasedSk, { status: 'ready', rowCount: rows, s3Key: key, stats: final }, now);
  logger.info('export written', { exportId: e.exportId, rows, won, ...final });
}
