/**
 * Direct reads of the billing items for assertions (the app runs in this process, so the
 * store modules talk to the test's own table).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { billKey, type BillItem } from '../../functions/bills/types';
import { db } from '../../functions/platform/clients';
import { checkMerchantLedger } from '../../functions/ledger/invariant';
import { getItem, table } from '../../functions/platform/table';

/** Every item whose pk starts with `prefix` (full scan; test tables are small). */
export async function scanPrefix<T = Record<string, unknown>>(prefix: string): Promise<T[]> {
  const out: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await db().send(
      new ScanCommand({
        TableName: table(),
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': prefix },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    out.push(...((r.Items ?? []) as T[]));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

export const bills = () => scanPrefix<BillItem>('BILL#');
export const billsOf = async (merchantId: string) => (await bills()).filter((b) => b.merchantId === merchantId);
export const getBill = (id: string) => getItem<BillItem>(billKey(id));

/**
 * The pair's counters: month, day and week totals summed over the periods kept (minor units;
 * 0 when absent), from the pair's counter item (`LIM#<decision>` / `C`, domain/limits.ts) and
 * any month/week items of before release 3; `items`: how many counter items hold a non-zero
 * total (the decision's own creation writes the counter item with zero totals).
 */
export async function counters(decisionId: string): Promise<{ month: number; day: number; week: number; items: number }> {
  const items = await scanPrefix<Record<string, unknown>>(`LIM#${decisionId}`);
  let month = 0;
  let day = 0;
  let week = 0;
  let counting = 0;
  for (const it of items) {
    const sk = String(it.sk);
    let sum = 0;
    if (sk.startsWith('M#')) {
      month += Number(it.total ?? 0);
      sum += Number(it.total ?? 0);
      for (const [k, v] of Object.entries(it)) if (/^d\d\d$/.test(k)) day += Number(v);
    } else if (sk.startsWith('W#')) {
      week += Number(it.total ?? 0);
      sum += Number(it.total ?? 0);
    } else {
      for (const [k, v] of Object.entries(it)) {
        if (!/^[mwd]\d{4}-/.test(k)) continue;
        sum += Math.abs(Number(v));
        if (k[0] === 'm') month += Number(v);
        else if (k[0] === 'w') week += Number(v);
        else day += Number(v);
      }
    }
    if (sum !== 0) counting++;
  }
  return { month, day, week, items: counting };
}

/** The ledger invariant for a merchant: no problems. */
export async function ledgerProblems(merchantId: string): Promise<string[]> {
  return (await checkMerchantLedger(merchantId)).problems;
}
