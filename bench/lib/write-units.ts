/**
 * What DynamoDB bills for a write, item by item (pure; bench/lib/ddb-proxy.ts feeds it the
 * item images before and after each write). DynamoDB Local's own ConsumedCapacity is not
 * used: for a TransactWriteItems it counts items of identical size once (10 small Puts
 * report 2 WRU, not 20).
 *
 * Item size (developer guide, "DynamoDB item sizes and formats"): the sum over attributes of
 * the UTF-8 bytes of the name plus the value's size: a string its UTF-8 bytes, a binary its
 * raw bytes, a boolean or null 1 byte, a number 1 byte plus 1 byte per two significant
 * digits (leading and trailing zeros trimmed; the integer and fraction parts are rounded up
 * separately and a negative number takes one byte more, as measured byte-exact on AWS by
 * the dynoxide project), a list or map 3 bytes plus 1 byte per element plus the elements
 * (a map element also its key's bytes), a set the sum of its elements.
 *
 * Write units (developer guide, "Capacity unit consumption for writes", "Global secondary
 * indexes: write capacity units"; transactions: "Capacity management for transactions"):
 * - base table: ceil(size / 1 KB) of the larger of the item before and after the write
 *   (Put replacing an item, Update, Delete: the item deleted), at least 1; a conditional
 *   single write whose condition fails: the existing item's units (1 if none);
 * - each GSI the item is in, before or after: nothing when its projected entry does not
 *   change; a put or a delete of the entry; an update in place at the larger of the two
 *   entries; a changed index key is a delete plus a put, each rounded on its own entry. An
 *   entry is the projected attributes: the table's key, the index key, and all attributes
 *   (ALL) or none else (KEYS_ONLY). An item without the index's key attributes is not in it;
 * - TransactWriteItems: the base table units of each item x 2 (prepare + commit); the index
 *   writes are not doubled (they are propagated after the commit); a ConditionCheck is
 *   charged 2 x the units of the item it reads (1 KB rounding, 2 if absent) as WRITE units,
 *   as measured on AWS (martinhicks.dev "What a conditional DynamoDB transaction actually
 *   costs"; dynoxide's captures). DynamoDB Local reports 0 for it.
 */

/** A low-level DynamoDB attribute value (as on the wire). */
export type AttributeValue =
  | { S: string }
  | { N: string }
  | { B: string | Uint8Array }
  | { BOOL: boolean }
  | { NULL: boolean }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: (string | Uint8Array)[] }
  | { L: AttributeValue[] }
  | { M: Record<string, AttributeValue> };

export type WireItem = Record<string, AttributeValue>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

const toBytes = (b: string | Uint8Array) => (typeof b === 'string' ? Buffer.from(b, 'base64') : Buffer.from(b));
/** Raw bytes of a binary value (base64 on the wire, Uint8Array from the SDK). */
const binaryBytes = (b: string | Uint8Array) => toBytes(b).length;

/** Bytes of a number as DynamoDB counts them in an item's size. */
export function numberSize(n: string): number {
  let s = n.trim();
  const negative = s.startsWith('-');
  s = s.replace(/^[-+]/, '');
  let exp = 0;
  const e = s.search(/[eE]/);
  if (e >= 0) {
    exp = Number(s.slice(e + 1));
    s = s.slice(0, e);
  }
  const dot = s.indexOf('.');
  const intPart = dot >= 0 ? s.slice(0, dot) : s;
  const fracPart = dot >= 0 ? s.slice(dot + 1) : '';
  let digits = (intPart + fracPart).replace(/[^0-9]/g, '');
  // position of the decimal point within `digits`, then the exponent moves it
  let point = intPart.replace(/[^0-9]/g, '').length + exp;
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead);
  point -= lead;
  digits = digits.replace(/0+$/, '');
  if (digits.length === 0) return 1; // zero
  const intDigits = Math.min(Math.max(point, 0), digits.length);
  const fracDigits = digits.length - intDigits;
  return Math.ceil(intDigits / 2) + Math.ceil(fracDigits / 2) + 1 + (negative ? 1 : 0);
}

/** Size of a value (without its attribute name). */
export function valueSize(v: AttributeValue): number {
  if ('S' in v) return utf8(v.S);
  if ('N' in v) return numberSize(v.N);
  if ('B' in v) return binaryBytes(v.B);
  if ('BOOL' in v || 'NULL' in v) return 1;
  if ('SS' in v) return v.SS.reduce((a, s) => a + utf8(s), 0);
  if ('NS' in v) return v.NS.reduce((a, s) => a + numberSize(s), 0);
  if ('BS' in v) return v.BS.reduce((a, b) => a + binaryBytes(b), 0);
  if ('L' in v) return 3 + v.L.reduce((a, x) => a + 1 + valueSize(x), 0);
  if ('M' in v) return 3 + Object.entries(v.M).reduce((a, [k, x]) => a + utf8(k) + 1 + valueSize(x), 0);
  throw new Error(`unknown attribute value ${JSON.stringify(v).slice(0, 80)}`);
}

/** Size of an item in bytes: names + values. */
export const itemSize = (item: WireItem): number => Object.entries(item).reduce((a, [k, v]) => a + utf8(k) + valueSize(v), 0);

/** Write units of one item of `bytes` (1 KB units, at least 1). */
export const writeUnitsOf = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

/** Read units of `bytes` read at once (4 KB units, at least 1; eventually consistent: half). */
export const readUnitsOf = (bytes: number, consistent: boolean): number => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

// ------------------------------------------------------------------------------------------
// The table's shape (functions/platform/definitions.ts TABLE, passed in: never hard-coded)

export interface IndexShape {
  name: string;
  partitionKey: string;
  sortKey?: string;
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  nonKeyAttributes?: readonly string[];
}

export interface TableShape {
  partitionKey: string;
  sortKey?: string;
  indexes: readonly IndexShape[];
}

const isKeyValue = (v: AttributeValue | undefined): v is { S: string } | { N: string } | { B: string } =>
  !!v && ('S' in v || 'N' in v || 'B' in v);

/** A key attribute's value as a string (partition keys in reports). */
export const keyString = (v: AttributeValue | undefined): string =>
  v === undefined ? '' : 'S' in v ? v.S : 'N' in v ? v.N : 'B' in v ? String(v.B) : JSON.stringify(v);

/** The index's entry for `item` (its projected attributes), or undefined when the item is not in the index. */
export function indexEntry(item: WireItem | undefined, index: IndexShape, table: TableShape): WireItem | undefined {
  if (!item) return undefined;
  if (!isKeyValue(item[index.partitionKey])) return undefined;
  if (index.sortKey && !isKeyValue(item[index.sortKey])) return undefined;
  if (index.projection === 'ALL') return item;
  const keep = new Set([table.partitionKey, table.sortKey, index.partitionKey, index.sortKey, ...(index.nonKeyAttributes ?? [])]);
  return Object.fromEntries(Object.entries(item).filter(([k]) => keep.has(k)));
}

/** Deep equality of two values (sets in any order). */
export function sameValue(a: AttributeValue | undefined, b: AttributeValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const [ka] = Object.keys(a);
  const [kb] = Object.keys(b);
  if (ka !== kb) return false;
  const x = (a as Record<string, unknown>)[ka!];
  const y = (b as Record<string, unknown>)[kb!];
  if (ka === 'SS' || ka === 'NS' || ka === 'BS') {
    const sx = (x as unknown[]).map(String).sort();
    const sy = (y as unknown[]).map(String).sort();
    return sx.length === sy.length && sx.every((v, i) => v === sy[i]);
  }
  if (ka === 'L') {
    const lx = x as AttributeValue[];
    const ly = y as AttributeValue[];
    return lx.length === ly.length && lx.every((v, i) => sameValue(v, ly[i]));
  }
  if (ka === 'M') return sameItem(x as WireItem, y as WireItem);
  if (ka === 'N') return x === y || Number(x) === Number(y);
  if (ka === 'B') return Buffer.compare(toBytes(x as string | Uint8Array), toBytes(y as string | Uint8Array)) === 0;
  return x === y;
}

export function sameItem(a: WireItem, b: WireItem): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => sameValue(a[k], b[k]));
}

/** One index's share of a write. */
export interface IndexWrite {
  /** Units charged to this index for the write (0: the entry did not change). */
  units: number;
  /** Units by index partition key (a key move charges the old and the new key). */
  byPartition: { key: string; units: number }[];
}

/** Units one index consumes for a write from `before` to `after` (undefined: absent / deleted). */
export function indexWrite(before: WireItem | undefined, after: WireItem | undefined, index: IndexShape, table: TableShape): IndexWrite {
  const old = indexEntry(before, index, table);
  const neu = indexEntry(after, index, table);
  const pkOf = (e: WireItem) => keyString(e[index.partitionKey]);
  const skOf = (e: WireItem) => (index.sortKey ? keyString(e[index.sortKey]) : '');
  if (!old && !neu) return { units: 0, byPartition: [] };
  if (!old) {
    const u = writeUnitsOf(itemSize(neu!));
    return { units: u, byPartition: [{ key: pkOf(neu!), units: u }] };
  }
  if (!neu) {
    const u = writeUnitsOf(itemSize(old));
    return { units: u, byPartition: [{ key: pkOf(old), units: u }] };
  }
  if (pkOf(old) !== pkOf(neu) || skOf(old) !== skOf(neu)) {
    const d = writeUnitsOf(itemSize(old));
    const p = writeUnitsOf(itemSize(neu));
    return {
      units: d + p,
      byPartition:
        pkOf(old) === pkOf(neu)
          ? [{ key: pkOf(neu), units: d + p }]
          : [
              { key: pkOf(old), units: d },
              { key: pkOf(neu), units: p },
            ],
    };
  }
  if (sameItem(old, neu)) return { units: 0, byPartition: [] };
  const u = Math.max(writeUnitsOf(itemSize(old)), writeUnitsOf(itemSize(neu)));
  return { units: u, byPartition: [{ key: pkOf(neu), units: u }] };
}

export type WriteAction = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

export interface ItemWrite {
  action: WriteAction;
  /** Inside a TransactWriteItems. */
  transactional: boolean;
  /** The condition failed (single writes only: a cancelled transaction is not charged here). */
  conditionFailed?: boolean;
  before: WireItem | undefined;
  after: WireItem | undefined;
}

export interface WriteCharge {
  /** Base table units (transactional x 2 included). */
  table: number;
  /** Of which the transactional doubling. */
  transactionalExtra: number;
  /** Per index name. */
  indexes: Record<string, number>;
  /** table + indexes. */
  total: number;
  bytesBefore: number | undefined;
  bytesAfter: number | undefined;
  /** Per partition: `table` or the index name, and the partition key value. */
  byPartition: { index: string; key: string; units: number }[];
}

/** What DynamoDB bills for one item of a write request. */
export function chargeWrite(w: ItemWrite, table: TableShape): WriteCharge {
  const bytesBefore = w.before ? itemSize(w.before) : undefined;
  const bytesAfter = w.after ? itemSize(w.after) : undefined;
  const key = keyString((w.before ?? w.after)?.[table.partitionKey]);
  const factor = w.transactional ? 2 : 1;
  let base: number;
  if (w.action === 'ConditionCheck' || w.conditionFailed) base = bytesBefore === undefined ? 1 : writeUnitsOf(bytesBefore);
  else
    base = Math.max(bytesBefore === undefined ? 0 : writeUnitsOf(bytesBefore), bytesAfter === undefined ? 0 : writeUnitsOf(bytesAfter), 1);
  const tableUnits = base * factor;
  const byPartition: WriteCharge['byPartition'] = [{ index: 'table', key, units: tableUnits }];
  const indexes: Record<string, number> = {};
  if (w.action !== 'ConditionCheck' && !w.conditionFailed) {
    for (const ix of table.indexes) {
      const iw = indexWrite(w.before, w.after, ix, table);
      if (iw.units === 0) continue;
      indexes[ix.name] = iw.units;
      for (const p of iw.byPartition) byPartition.push({ index: ix.name, key: p.key, units: p.units });
    }
  }
  const ix = Object.values(indexes).reduce((a, b) => a + b, 0);
  return {
    table: tableUnits,
    transactionalExtra: tableUnits - base,
    indexes,
    total: tableUnits + ix,
    bytesBefore,
    bytesAfter,
    byPartition,
  };
}
