/**
 * The bench's write-unit counter (bench/lib/write-units.ts) against DynamoDB's documented
 * rules and examples: item sizes, 1 KB write units, the larger of before and after, failed
 * conditional writes, transactions at 2x, and the GSI write rules — on the table
 * definition the service deploys (functions/platform/definitions.ts).
 */
import { describe, expect, it } from 'vitest';
import { TABLE } from '../../functions/platform/definitions';
import {
  chargeWrite,
  indexEntry,
  indexWrite,
  itemSize,
  numberSize,
  readUnitsOf,
  valueSize,
  writeUnitsOf,
  type TableShape,
  type WireItem,
} from '../../bench/lib/write-units';

const S = (s: string) => ({ S: s });
const N = (n: string | number) => ({ N: String(n) });
/** An item of exactly `bytes` bytes: pk + sk + a padding string. */
const sized = (bytes: number, extra: WireItem = {}): WireItem => {
  const base: WireItem = { pk: S('P#1'), sk: S('X'), ...extra };
  const pad = bytes - itemSize(base) - 'pad'.length;
  if (pad < 0) throw new Error('too small');
  return { ...base, pad: S('x'.repeat(pad)) };
};
const table: TableShape = TABLE;

describe('item size (developer guide: "DynamoDB item sizes and formats")', () => {
  it('strings are UTF-8 bytes of the name plus the value', () => {
    expect(itemSize({ name: S('abc') })).toBe(4 + 3);
    expect(itemSize({ é: S('ü€') })).toBe(2 + 2 + 3);
    expect(itemSize({ pk: S('') })).toBe(2);
  });

  it('numbers: 1 byte plus 1 per two significant digits, leading and trailing zeros trimmed', () => {
    expect(numberSize('0')).toBe(1);
    expect(numberSize('7')).toBe(2);
    expect(numberSize('42')).toBe(2);
    expect(numberSize('123')).toBe(3);
    expect(numberSize('12345')).toBe(4);
    expect(numberSize('1000000')).toBe(2); // one significant digit
    expect(numberSize('007')).toBe(2);
    expect(numberSize('1.50')).toBe(3); // 1 | 5: the integer and fraction halves round up separately (measured on AWS)
    expect(numberSize('0.001')).toBe(2);
    expect(numberSize('-42')).toBe(3); // a negative number costs one byte more (measured on AWS)
    expect(numberSize('1e3')).toBe(2);
    expect(itemSize({ amount: N(10000) })).toBe(6 + 2);
  });

  it('binary: raw bytes, not base64; boolean and null: 1 byte', () => {
    expect(valueSize({ B: Buffer.from('hello').toString('base64') })).toBe(5);
    expect(valueSize({ B: new Uint8Array(10) })).toBe(10);
    expect(itemSize({ ok: { BOOL: true }, no: { NULL: true } })).toBe(2 + 1 + 2 + 1);
  });

  it('lists and maps: 3 bytes of overhead plus 1 per element; empty: name + 3', () => {
    expect(itemSize({ l: { L: [] } })).toBe(1 + 3);
    expect(itemSize({ m: { M: {} } })).toBe(1 + 3);
    expect(itemSize({ l: { L: [S('ab'), N(42)] } })).toBe(1 + 3 + (1 + 2) + (1 + 2));
    expect(itemSize({ m: { M: { a: S('xy'), bb: { L: [] } } } })).toBe(1 + 3 + (1 + 1 + 2) + (2 + 1 + 3));
  });

  it('sets: the sum of their elements', () => {
    expect(itemSize({ ss: { SS: ['a', 'bcd'] } })).toBe(2 + 4);
    expect(itemSize({ ns: { NS: ['1', '12345'] } })).toBe(2 + 2 + 4);
  });
});

describe('write and read units (developer guide: "Capacity unit consumption")', () => {
  it('a put or delete of 1.6 KB is 2 write units; 1 KB is 1; anything is at least 1', () => {
    expect(writeUnitsOf(1.6 * 1024)).toBe(2);
    expect(writeUnitsOf(1024)).toBe(1);
    expect(writeUnitsOf(1025)).toBe(2);
    expect(writeUnitsOf(10)).toBe(1);
  });

  it('BatchWriteItem of a 500-byte and a 3.5 KB item: 5 units, each item rounded on its own', () => {
    const a = chargeWrite({ action: 'Put', transactional: false, before: undefined, after: sized(500) }, { ...table, indexes: [] });
    const b = chargeWrite({ action: 'Put', transactional: false, before: undefined, after: sized(3.5 * 1024) }, { ...table, indexes: [] });
    expect(a.total + b.total).toBe(5);
  });

  it('UpdateItem and PutItem over an item: the larger of before and after', () => {
    const before = sized(1500);
    const after = sized(900);
    expect(chargeWrite({ action: 'Update', transactional: false, before, after }, table).table).toBe(2);
    expect(chargeWrite({ action: 'Put', transactional: false, before: after, after: before }, table).table).toBe(2);
    expect(chargeWrite({ action: 'Delete', transactional: false, before, after: undefined }, table).table).toBe(2);
  });

  it('a failed conditional write: the existing item units (1 KB: 1, 2 KB: 2), 1 when there is none; no index write', () => {
    const idx = { gsi1pk: S('A'), gsi1sk: S('B') };
    const fail = (before: WireItem | undefined) =>
      chargeWrite({ action: 'Put', transactional: false, conditionFailed: true, before, after: before }, table);
    expect(fail(sized(1000, idx)).total).toBe(1);
    expect(fail(sized(2048, idx)).total).toBe(2);
    expect(fail(undefined).total).toBe(1);
  });

  it('a transaction writing three 500-byte items needs 6 write units (prepare + commit)', () => {
    const total = [1, 2, 3]
      .map((i) => chargeWrite({ action: 'Put', transactional: true, before: undefined, after: sized(500, { pk: S(`P#${i}`) }) }, table))
      .reduce((a, c) => a + c.total, 0);
    expect(total).toBe(6);
  });

  it('transactions double the base table only; a ConditionCheck is 2 write units of the item it reads', () => {
    const after = sized(1500, { gsi2pk: S('MTXN#m'), gsi2sk: S('2026#x') });
    const c = chargeWrite({ action: 'Put', transactional: true, before: undefined, after }, table);
    expect(c.table).toBe(4);
    expect(c.transactionalExtra).toBe(2);
    expect(c.indexes).toEqual({ gsi2: 2 });
    expect(c.total).toBe(6);
    const check = chargeWrite({ action: 'ConditionCheck', transactional: true, before: after, after }, table);
    expect(check).toMatchObject({ table: 4, indexes: {}, total: 4 });
    expect(chargeWrite({ action: 'ConditionCheck', transactional: true, before: undefined, after: undefined }, table).total).toBe(2);
  });

  it('reads: 4 KB units; a 3.5 KB item is 1 strongly consistent unit, 0.5 eventually consistent', () => {
    expect(readUnitsOf(3.5 * 1024, true)).toBe(1);
    expect(readUnitsOf(3.5 * 1024, false)).toBe(0.5);
    expect(readUnitsOf(10 * 1024, true)).toBe(3);
    expect(readUnitsOf(0, true)).toBe(1); // a read of a missing item still costs 1
  });
});

describe('global secondary index writes (developer guide: "GSI write capacity units"), on the deployed table', () => {
  const gsi1 = table.indexes.find((i) => i.name === 'gsi1')!;
  const due = table.indexes.find((i) => i.name === 'due')!;
  const base = { pk: S('BILL#1'), sk: S('BILL'), status: S('pending') };

  it('an item defining the index key: one put into the index; not defining it (or only half of it): no write', () => {
    expect(indexWrite(undefined, { ...base, gsi1pk: S('REF#1'), gsi1sk: S('BILL') }, gsi1, table).units).toBe(1);
    expect(indexWrite(undefined, base, gsi1, table).units).toBe(0);
    expect(indexWrite(undefined, { ...base, gsi1pk: S('REF#1') }, gsi1, table).units).toBe(0);
  });

  it('a changed index key: a delete and a put (2 writes), charged to the old and the new partition', () => {
    const a = { ...base, duePk: S('DUE#1'), dueSk: S('2026-01-01#k#1') };
    const b = { ...base, duePk: S('DUE#1'), dueSk: S('2026-01-02#k#1') };
    expect(indexWrite(a, b, due, table)).toEqual({ units: 2, byPartition: [{ key: 'DUE#1', units: 2 }] });
    const c = { ...base, duePk: S('DUE#2'), dueSk: S('2026-01-02#k#1') };
    expect(indexWrite(a, c, due, table).byPartition).toEqual([
      { key: 'DUE#1', units: 1 },
      { key: 'DUE#2', units: 1 },
    ]);
  });

  it('the index attribute removed: one delete; absent before and after: nothing', () => {
    const a = { ...base, duePk: S('DUE#1'), dueSk: S('2026-01-01#k#1') };
    expect(indexWrite(a, base, due, table).units).toBe(1);
    expect(indexWrite(base, { ...base, status: S('done') }, due, table).units).toBe(0);
  });

  it('only projected attributes changed: one write (ALL); a change outside a KEYS_ONLY projection: none', () => {
    const a = { ...base, gsi1pk: S('REF#1'), gsi1sk: S('BILL'), duePk: S('DUE#1'), dueSk: S('t#k#1') };
    const b = { ...a, status: S('succeeded') };
    expect(indexWrite(a, b, gsi1, table).units).toBe(1);
    expect(indexWrite(a, b, due, table).units).toBe(0);
    expect(indexWrite(a, { ...a }, gsi1, table).units).toBe(0);
  });

  it('the entry is sized on its projection: a KEYS_ONLY entry of a 3 KB item is 1 write unit, an ALL one 3', () => {
    const big = sized(3000, { duePk: S('DUE#1'), dueSk: S('t#k#1'), gsi1pk: S('REF#1'), gsi1sk: S('BILL') });
    expect(Object.keys(indexEntry(big, due, table)!).sort()).toEqual(['duePk', 'dueSk', 'pk', 'sk']);
    const c = chargeWrite({ action: 'Put', transactional: false, before: undefined, after: big }, table);
    expect(c.indexes).toEqual({ gsi1: 3, due: 1 });
    expect(c.total).toBe(3 + 3 + 1);
  });

  it('per partition: the base table key and each index key with its units', () => {
    const it = sized(800, { gsi3pk: S('BTXN#bank'), gsi3sk: S('t#1') });
    const c = chargeWrite({ action: 'Put', transactional: true, before: undefined, after: it }, table);
    expect(c.byPartition).toEqual([
      { index: 'table', key: 'P#1', units: 2 },
      { index: 'gsi3', key: 'BTXN#bank', units: 1 },
    ]);
  });
});
