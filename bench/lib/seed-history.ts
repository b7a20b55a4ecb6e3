/**
 * Seeding for the list benchmark (bench/lists.ts): N settled-looking transactions of one
 * merchant, built by the billing flow's own builder (`buildBillItem`, every index attribute
 * included) and written with BatchWriteItem straight into the table, one second apart,
 * oldest first. Returns the billingRequestIds in creation order.
 */
import { batchPut } from '../../functions/customers/store';
import { buildBillItem } from '../../functions/billing/bill-item';
import { newId, randomToken } from '../../functions/domain/ids';
import { periodKeys } from '../../functions/domain/lagos-time';
import type { Item } from '../../functions/platform/table';
import { mapLimit } from './stats';

export async function seedHistory(o: {
  n: number;
  merchant: { id: string; name: string };
  bankId: string;
  start: string;
}): Promise<string[]> {
  const t0 = Date.parse(o.start);
  const ids: string[] = [];
  const chunks: Item[][] = [];
  let chunk: Item[] = [];
  for (let i = 0; i < o.n; i++) {
    const createdAt = new Date(t0 + i * 1000);
    const b = buildBillItem({
      billingRequestId: newId('breq'),
      type: 'agreement',
      merchant: o.merchant,
      customer: { id: `cus_${randomToken(10)}`, bankId: o.bankId },
      decisionId: `dec_${randomToken(12)}`,
      amount: 1_000 + (i % 500),
      currency: 'NGN',
      description: 'Bench order',
      requiresApproval: false,
      periods: periodKeys(createdAt),
      createdAt: createdAt.toISOString(),
    });
    ids.push(b.billingRequestId);
    chunk.push({ ...b, status: i % 10 === 0 ? 'declined' : 'succeeded' } as unknown as Item);
    if (chunk.length === 500) {
      chunks.push(chunk);
      chunk = [];
    }
  }
  if (chunk.length) chunks.push(chunk);
  await mapLimit(chunks, 8, (c) => batchPut(c));
  return ids;
}
