/**
 * Due kind `export.run` (issue 22, DESIGN 8.8): writes an export's CSV to S3.
 *
 * Rows come one DynamoDB page at a time (transactions: the merchant's index between
 * `from` and `to`; settlement: the settlement's lines) and are appended to a buffer that is
 * sent as one part of a multipart upload each time it reaches 5 MiB: the job holds one
 * page and one part, never the export (100,000 rows ≈ 20 MB of CSV; checked by the
 * reliability test, which reads the peak heap recorded in `stats`). Each run writes its own
 * object (`exports/<merchantId>/<exportId>/<run>.csv`), and the export becomes `ready`
 * only while the run's claim holds, so a run taken over after its lease cannot overwrite
 * the winner's file. A run that fails leaves the claim to expire (the tick retries);
 * after MAX_RUNS claims the export is `failed`.
 */
import { config } from '../config';
import { toMajor } from '../domain/money';
import { getSettlement, queryLinePages, signedLineAmount } from '../ledger/settlement-views';
import type { DueJob } from '../platform/due';
import { logger } from '../platform/log';
import { MIN_PART_BYTES, MultipartUpload } from '../platform/s3';
import { transactionPages } from '../transactions/store';
import { csvRow, SETTLEMENT_COLUMNS, TRANSACTION_COLUMNS } from './csv';
import { finishExport } from './store';
import { getExport, type ExportItem } from './views';

/** Claims of one export before it is given up as failed. */
export const MAX_RUNS = 3;

const MB = 1024 * 1024;

class CsvUpload {
  private buffer: string[] = [];
  private bytes = 0;
  rows = 0;
  totalBytes = 0;
  parts = 0;
  peakHeap = 0;
  peakRss = 0;

  constructor(private readonly upload: MultipartUpload) {}

  async header(columns: readonly string[]): Promise<void> {
    await this.append(csvRow(columns), false);
  }

  async row(line: string): Promise<void> {
    await this.append(line, true);
  }

  private async append(line: string, isRow: boolean): Promise<void> {
    this.buffer.push(line);
    this.bytes += Buffer.byteLength(line);
    if (isRow) this.rows++;
    if (this.bytes >= MIN_PART_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.bytes === 0) return;
    const part = Buffer.from(this.buffer.join(''), 'utf8');
    this.buffer = [];
    this.bytes = 0;
    this.sample();
    await this.upload.uploadPart(part);
    this.parts++;
    this.totalBytes += part.byteLength;
  }

  sample(): void {
    const m = process.memoryUsage();
    this.peakHeap = Math.max(this.peakHeap, m.heapUsed);
    this.peakRss = Math.max(this.peakRss, m.rss);
  }
}

async function writeRows(e: ExportItem, out: CsvUpload): Promise<void> {
  if (e.kind === 'transactions') {
    await out.header(TRANSACTION_COLUMNS);
    const filter = { ...(e.from ? { from: new Date(e.from) } : {}), ...(e.to ? { to: new Date(e.to) } : {}) };
    await transactionPages({ index: 'gsi2', pk: `MTXN#${e.merchantId}` }, filter, async (page) => {
      for (const t of page) await out.row(csvRow(TRANSACTION_COLUMNS.map((c) => t[c])));
      out.sample();
    });
    return;
  }
  const s = e.settlementId ? await getSettlement(e.settlementId) : undefined;
  if (!s || s.merchantId !== e.merchantId) throw new Error('settlement missing');
  await out.header(SETTLEMENT_COLUMNS);
  await queryLinePages(s.merchantId, s.businessDate, s.settlementId, { includeOpen: false }, async (lines) => {
    for (const l of lines) await out.row(csvRow([s.settlementId, s.businessDate, l.reference, l.type, toMajor(signedLineAmount(l)), s.currency]));
    out.sample();
  });
}

export async function runExport(job: DueJob): Promise<void> {
  const e = await getExport(job.id);
  if (!e || e.status !== 'pending' || e.dueSk !== job.leasedSk) return;
  const now = new Date(job.now);
  const claims = Number((e as { dueClaims?: number }).dueClaims ?? 1);
  if (claims > MAX_RUNS) {
    await finishExport(e.exportId, job.leasedSk, { status: 'failed', reason: 'The export could not be written; create a new one' }, now);
    return;
  }
  const started = Date.now();
  const key = `exports/${e.merchantId}/${e.exportId}/run-${claims}.csv`;
  const upload = new MultipartUpload(config.exportsBucket(), key);
  const out = new CsvUpload(upload);
  out.sample();
  const heapAtStart = process.memoryUsage().heapUsed;
  try {
    await upload.start();
    await writeRows(e, out);
    await out.flush();
    await upload.complete();
  } catch (err) {
    await upload.abort();
    logger.error('export run failed', { exportId: e.exportId, run: claims, error: (err as Error).message });
    throw err; // the claim expires and the tick runs it again (up to MAX_RUNS)
  }
  const stats = {
    bytes: out.totalBytes,
    parts: out.parts,
    peakHeapMb: Math.round((out.peakHeap / MB) * 10) / 10,
    heapAtStartMb: Math.round((heapAtStart / MB) * 10) / 10,
    peakRssMb: Math.round((out.peakRss / MB) * 10) / 10,
    durationMs: Date.now() - started,
  };
  const won = await finishExport(e.exportId, job.leasedSk, { status: 'ready', rowCount: out.rows, s3Key: key, stats }, now);
  logger.info('export written', { exportId: e.exportId, rows: out.rows, won, ...stats });
}
