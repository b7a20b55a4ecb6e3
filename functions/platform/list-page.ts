/**
 * Pages of one owner's list partition (DESIGN 6.4, 8.9): every list of the API reads an
 * index partition `<pk>` sorted by `<sk>` (`<createdAt>#<id>` everywhere), with optional
 * inclusive bounds on the sort key and an optional FilterExpression for filters that
 * cannot be key conditions. Two ways to page it, the one place each is written:
 *
 * - `pageAfter`: after a cursor item (`startingAfter`). One Query whose key condition starts
 *   just past the cursor item's sort key (unique: `<createdAt>#<id>`), `Limit` = limit + 1
 *   (the extra item says `hasMore`): the same work at 100 or 100,000 items of history. With a FilterExpression, DynamoDB's
 *   `Limit` counts items read before the filter, so the read repeats (each read bounded)
 *   until limit + 1 items matched or the range ends: its cost follows how far apart the
 *   matches are, never the size of the history before the cursor.
 * - `pageAt`: the release-1 `skip`/`offset` page: reads only the first skip + limit
 *   matches (the API refuses skip + limit above `MAX_SKIP_WINDOW`), and counts `total` with
 *   a `Select: COUNT` Query (no item leaves DynamoDB; it still reads the range, so `total`
 *   is only computed on skip pages).
 *
 * A list may span several partitions (`more`): the shards of a sharded owner key
 * (`BTXN#<bank>#<n>`, so no bank's list is one hot partition) and the list's partition on a
 * former index (items written before the list moved keep their old keys: read, never
 * rewritten). Every partition shares the sort key's format, so the pages are a merge of the
 * partitions' Queries in sort key order, with the same cursor rule (the cursor's sort key
 * bounds every partition's Query). A list whose index holds keys only (`hydrate`: the index
 * entries carry no attribute that changes, so an update of the item writes no index copy)
 * reads each page's items from the table by key (one BatchGetItem per 100) and filters them
 * in memory (`filter.test`: DynamoDB cannot filter an index entry on attributes it does not
 * hold).
 */
import { createHash } from 'node:crypto';
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db } from './clients';
import { LIST_SHARDS } from './definitions';
import { batchGetByKey, itemKeyOf, table, type Item } from './table';

/** `skip + limit` (or `offset + limit`) above this is refused: use `startingAfter` (DESIGN 8.9). */
export const MAX_SKIP_WINDOW = 10_000;

/** Items read per Query when a FilterExpression discards some (each read stays bounded). */
const FILTERED_READ = 200;

/** One partition of a list: an index (or the table) and its partition key value. */
export interface ListSource {
  /** The GSI (undefined: the table itself). */
  index?: string;
  /** Names of the partition and sort key attributes of that index. */
  pkName: string;
  skName: string;
  pk: string;
}

export interface ListRange extends ListSource {
  /**
   * Further partitions of the same list, merged with the first in sort key order: the other
   * shards of a sharded key, the list's partition on a former index.
   */
  more?: readonly ListSource[];
  /**
   * The indexes hold keys only (or attributes that never change): each page's items are read
   * from the table by key (strongly consistent BatchGetItem), then filtered by `filter.test`.
   */
  hydrate?: boolean;
  /** Inclusive bounds on the sort key. */
  lo?: string;
  hi?: string;
  /** Oldest first (default: newest first). */
  ascending?: boolean;
  /**
   * A FilterExpression with its names and values (names `#f…`, values `:f…`, to stay clear of
   * the key's), and the same filter as a predicate (`test`: required for a merged or
   * hydrated range, which filters in memory).
   */
  filter?: {
    expression: string;
    names?: Record<string, string>;
    values?: Record<string, unknown>;
    test?: (item: Item) => boolean;
  };
  /** Attributes to read (undefined: all of them). */
  projection?: readonly string[];
  /** Strongly consistent reads (the table only; GSIs cannot). */
  consistent?: boolean;
  /** Which bound excludes its own value (a cursor's position; set by `pageAfter`). */
  exclusive?: 'lo' | 'hi';
}

/** The shard of a sharded list key an item with this id goes to (a hash: the same id, the same shard). */
export const listShardOf = (id: string): number => createHash('sha1').update(id).digest().readUInt32BE(0) % LIST_SHARDS;

/** The sharded key `<key>#<shard>` of an item. */
export const shardedKey = (key: string, id: string): string => `${key}#${listShardOf(id)}`;

/** Every shard of a sharded list key on `index` (sort key `skName`): the partitions a list reads. */
export const shardSources = (index: string, pkName: string, skName: string, key: string): ListSource[] =>
  Array.from({ length: LIST_SHARDS }, (_, n) => ({ index, pkName, skName, pk: `${key}#${n}` }));

/** The range's partitions: the first and `more`. */
export const sourcesOf = (range: ListRange): ListSource[] => [
  { index: range.index, pkName: range.pkName, skName: range.skName, pk: range.pk },
  ...(range.more ?? []),
];

/** Whether the range is read by the merging reader (several partitions, or keys-only indexes). */
const merging = (range: ListRange) => (range.more?.length ?? 0) > 0 || range.hydrate === true;

/** The sort key `item` has in the range's list, when it lies in one of its partitions; else undefined. */
export function cursorSk(range: ListRange, item: Item | undefined): string | undefined {
  if (item === undefined) return undefined;
  for (const s of sourcesOf(range)) if (item[s.pkName] === s.pk && typeof item[s.skName] === 'string') return item[s.skName] as string;
  return undefined;
}

/** Whether `item` belongs to the range's partitions: the only items a cursor may name. */
export const inPartition = (range: ListRange, item: Item | undefined): item is Item => cursorSk(range, item) !== undefined;

function queryInput(range: ListRange, select?: 'COUNT'): Omit<QueryCommandInput, 'TableName'> {
  const names: Record<string, string> = { '#lpk': range.pkName, ...range.filter?.names };
  const values: Record<string, unknown> = { ':lpk': range.pk, ...range.filter?.values };
  let key = '#lpk = :lpk';
  if (range.lo !== undefined || range.hi !== undefined) names['#lsk'] = range.skName;
  // BETWEEN is inclusive at both ends: an exclusive end there is dropped by `readMatches`.
  if (range.lo !== undefined && range.hi !== undefined) {
    key += ' AND #lsk BETWEEN :llo AND :lhi';
    Object.assign(values, { ':llo': range.lo, ':lhi': range.hi });
  } else if (range.lo !== undefined) {
    key += ` AND #lsk ${range.exclusive === 'lo' ? '>' : '>='} :llo`;
    values[':llo'] = range.lo;
  } else if (range.hi !== undefined) {
    key += ` AND #lsk ${range.exclusive === 'hi' ? '<' : '<='} :lhi`;
    values[':lhi'] = range.hi;
  }
  let projection: string | undefined;
  if (range.projection && select === undefined) {
    // The sort key is always read: `readMatches` recognises a cursor's item by it.
    projection = [...new Set([...range.projection, range.skName])]
      .map((a, i) => {
        names[`#lp${i}`] = a;
        return `#lp${i}`;
      })
      .join(', ');
  }
  return {
    ...(range.index ? { IndexName: range.index } : {}),
    KeyConditionExpression: key,
    ...(range.filter ? { FilterExpression: range.filter.expression } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: range.ascending === true,
    ...(projection ? { ProjectionExpression: projection } : {}),
    ...(select ? { Select: select } : {}),
    ...(range.consistent ? { ConsistentRead: true } : {}),
  };
}

/**
 * Where the next Query of a multi-page read starts after `last` (a LastEvaluatedKey): past its
 * sort key as a key condition when that bound is the range's only one (DynamoDB Local walks to
 * an ExclusiveStartKey from the partition's start, so continuing by key condition keeps a long
 * read linear there; the same on DynamoDB), else from the ExclusiveStartKey.
 */
function continueAfter(range: ListRange, last: Record<string, unknown>): { range: ListRange; start?: Record<string, unknown> } {
  const at = last[range.skName];
  if (typeof at !== 'string') return { range, start: last };
  if (!range.ascending && range.lo === undefined) return { range: { ...range, hi: at, exclusive: 'hi' } };
  if (range.ascending && range.hi === undefined) return { range: { ...range, lo: at, exclusive: 'lo' } };
  return { range, start: last };
}

/** Reads matches from the range's start until `want` matched or the range ended; `more`: whether items may follow. */
async function readMatches<T>(range: ListRange, want: number): Promise<{ items: T[]; more: boolean }> {
  if (merging(range)) return readMerged<T>(range, want);
  // The item at an exclusive end that BETWEEN still returns (read once more, then dropped).
  const excluded =
    range.lo !== undefined && range.hi !== undefined && range.exclusive ? (range.exclusive === 'lo' ? range.lo : range.hi) : undefined;
  const items: T[] = [];
  let at: { range: ListRange; start?: Record<string, unknown> } | undefined = { range };
  let extra = excluded !== undefined ? 1 : 0;
  do {
    const need = want - items.length + extra;
    const out: QueryCommandOutput = await db().send(
      new QueryCommand({
        ...queryInput(at.range),
        TableName: table(),
        ExclusiveStartKey: at.start,
        Limit: range.filter ? Math.max(FILTERED_READ, need) : need,
      }),
    );
    for (const it of out.Items ?? []) {
      if (excluded !== undefined && (it as Item)[range.skName] === excluded) extra = 0;
      else items.push(it as T);
    }
    at = out.LastEvaluatedKey ? continueAfter(at.range, out.LastEvaluatedKey) : undefined;
  } while (at && items.length < want);
  return { items: items.slice(0, want), more: items.length > want || at !== undefined };
}

// ---------------------------------------------------------------------------------------
// Merged partitions (sharded keys, former indexes) and keys-only indexes

/** The range restricted to one of its partitions. */
const onSource = (range: ListRange, s: ListSource): ListRange => ({
  ...range,
  index: s.index,
  pkName: s.pkName,
  skName: s.skName,
  pk: s.pk,
  more: undefined,
});

/** A partition's Query, read a page at a time: its entries not yet merged (with their sort keys). */
interface Stream {
  range: ListRange;
  start?: Record<string, unknown>;
  buf: { sk: string; item: Item }[];
  done: boolean;
}

/** Reads the stream's next page of `size` index entries (keys only when the range hydrates). */
async function fill(st: Stream, size: number, hydrate: boolean): Promise<void> {
  const { FilterExpression: _f, ProjectionExpression: _p, ...input } = queryInput(st.range);
  const names = { ...input.ExpressionAttributeNames };
  const values = { ...input.ExpressionAttributeValues };
  // The filter runs in memory (`filter.test`); its names and values must leave the Query too.
  for (const k of Object.keys(st.range.filter?.names ?? {})) delete names[k];
  for (const k of Object.keys(st.range.filter?.values ?? {})) delete values[k];
  for (const k of Object.keys(names)) if (/^#lp\d+$/.test(k)) delete names[k];
  const excluded =
    st.range.lo !== undefined && st.range.hi !== undefined && st.range.exclusive
      ? st.range.exclusive === 'lo'
        ? st.range.lo
        : st.range.hi
      : undefined;
  const out: QueryCommandOutput = await db().send(
    new QueryCommand({
      ...input,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ...(!hydrate && st.range.projection && !st.range.filter ? { ProjectionExpression: projectionOf(st.range, names) } : {}),
      TableName: table(),
      ExclusiveStartKey: st.start,
      Limit: size,
    }),
  );
  for (const it of out.Items ?? []) {
    const sk = (it as Item)[st.range.skName];
    if (typeof sk !== 'string' || sk === excluded) continue;
    st.buf.push({ sk, item: it as Item });
  }
  const next = out.LastEvaluatedKey ? continueAfter(st.range, out.LastEvaluatedKey) : undefined;
  if (!next) st.done = true;
  else {
    st.range = next.range;
    st.start = next.start;
  }
}

function projectionOf(range: ListRange, names: Record<string, string>): string {
  return [...new Set([...(range.projection ?? []), range.skName, 'pk', 'sk'])]
    .map((a, i) => {
      names[`#lp${i}`] = a;
      return `#lp${i}`;
    })
    .join(', ');
}

/**
 * The range's items in its order, merged over its partitions: `skip` matches passed over
 * (without reading their items when nothing filters), then matches until the caller stops.
 * `size`: index entries read per Query of a partition.
 */
async function* mergedItems(range: ListRange, size: number, skip = 0): AsyncGenerator<Item> {
  const hydrate = range.hydrate === true;
  const test = range.filter?.test;
  if (range.filter && !test) throw new Error('a merged or hydrated list range needs filter.test');
  const streams: Stream[] = sourcesOf(range).map((s) => ({ range: onSource(range, s), buf: [], done: false }));
  const newestFirst = range.ascending !== true;
  const seen = new Set<string>();
  let skipped = 0;
  for (;;) {
    await Promise.all(streams.filter((st) => st.buf.length === 0 && !st.done).map((st) => fill(st, size, hydrate)));
    const chunk: Item[] = [];
    // An entry can be taken only while every partition that is not finished shows its next one.
    while (chunk.length < size && !streams.some((st) => st.buf.length === 0 && !st.done)) {
      let best: Stream | undefined;
      for (const st of streams) {
        if (st.buf.length === 0) continue;
        if (!best || (newestFirst ? st.buf[0]!.sk > best.buf[0]!.sk : st.buf[0]!.sk < best.buf[0]!.sk)) best = st;
      }
      if (!best) break;
      const { item } = best.buf.shift()!;
      const id = itemKeyOf(item as { pk: string; sk: string });
      if (seen.has(id)) continue;
      seen.add(id);
      if (!test && skipped < skip) {
        skipped++;
        continue;
      }
      chunk.push(item);
    }
    if (chunk.length === 0) {
      if (streams.every((st) => st.done && st.buf.length === 0)) return;
      continue;
    }
    const read = hydrate
      ? await batchGetByKey<Item>(chunk as { pk: string; sk: string }[], range.projection ? [...range.projection] : undefined)
      : undefined;
    for (const entry of chunk) {
      const item = read ? read.get(itemKeyOf(entry as { pk: string; sk: string })) : entry;
      if (!item || (test && !test(item))) continue;
      if (skipped < skip) {
        skipped++;
        continue;
      }
      yield item;
    }
  }
}

/** Entries read per partition Query: what the page needs, bounded (a filter reads ahead). */
const readSize = (range: ListRange, want: number) => Math.min(1000, range.filter ? Math.max(FILTERED_READ, want) : Math.max(1, want));

async function readMerged<T>(range: ListRange, want: number, skip = 0): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  if (want <= 0) return { items, more: true };
  for await (const it of mergedItems(range, readSize(range, want), skip)) {
    items.push(it as T);
    if (items.length >= want) return { items, more: true };
  }
  return { items, more: false };
}

/**
 * The page after `after` (an item of this partition: check with `inPartition` first), in the
 * range's order. A cursor outside the sort key bounds still has a place in that order: before
 * the range (the page starts at its beginning) or after it (nothing follows).
 */
export async function pageAfter<T>(range: ListRange, limit: number, after: Item): Promise<{ items: T[]; hasMore: boolean }> {
  const sk = cursorSk(range, after);
  if (sk === undefined) throw new Error('pageAfter: the cursor is not in the range');
  const beforeRange = range.ascending ? range.lo !== undefined && sk < range.lo : range.hi !== undefined && sk > range.hi;
  const pastRange = range.ascending ? range.hi !== undefined && sk > range.hi : range.lo !== undefined && sk < range.lo;
  if (pastRange) return { items: [], hasMore: false };
  // The cursor's sort key becomes the range's (exclusive) near end: a key condition, so the
  // Query starts at the cursor through the index itself (DynamoDB Local, unlike DynamoDB,
  // walks to an ExclusiveStartKey: measured in bench/lists.ts, docs/decisions/list-paging.md).
  const from: ListRange = beforeRange
    ? range
    : range.ascending
      ? { ...range, lo: sk, exclusive: 'lo' }
      : { ...range, hi: sk, exclusive: 'hi' };
  const { items } = await readMatches<T>(from, limit + 1);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/** The first `want` matches of the range, in its order. */
export async function readRange<T>(range: ListRange, want: number): Promise<T[]> {
  return (await readMatches<T>(range, want)).items;
}

/** How many items of the range match (a `Select: COUNT` Query, page by page; no item is returned). */
export async function countMatches(range: ListRange): Promise<number> {
  if (merging(range)) {
    if (range.filter) {
      // A filter on attributes the index does not hold: every item of the range is read.
      let n = 0;
      for await (const _ of mergedItems(range, 1000)) n++;
      return n;
    }
    const counts = await Promise.all(sourcesOf(range).map((s) => countMatches({ ...onSource(range, s), hydrate: false })));
    return counts.reduce((a, b) => a + b, 0);
  }
  let total = 0;
  let at: { range: ListRange; start?: Record<string, unknown> } | undefined = { range };
  do {
    const out: QueryCommandOutput = await db().send(
      new QueryCommand({ ...queryInput(at.range, 'COUNT'), TableName: table(), ExclusiveStartKey: at.start }),
    );
    total += out.Count ?? 0;
    at = out.LastEvaluatedKey ? continueAfter(at.range, out.LastEvaluatedKey) : undefined;
  } while (at);
  return total;
}

/**
 * The release-1 page: matches skip .. skip + limit - 1 (reading only the first skip + limit
 * matches), `total` (a COUNT Query, run alongside) and `hasMore`.
 */
export async function pageAt<T>(range: ListRange, skip: number, limit: number): Promise<{ items: T[]; total: number; hasMore: boolean }> {
  const [items, total] = await Promise.all([
    merging(range)
      ? readMerged<T>(range, limit, skip).then((r) => r.items)
      : readMatches<T>(range, skip + limit).then((r) => r.items.slice(skip)),
    countMatches(range),
  ]);
  return { items, total, hasMore: skip + items.length < total };
}

/**
 * The FilterExpression of equality filters (`attribute = value`, AND), skipping undefined
 * values, plus optional raw clauses; undefined when nothing filters.
 */
export function equalsFilter(
  fields: Record<string, unknown>,
  extra: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> }[] = [],
): ListRange['filter'] {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  Object.entries(fields).forEach(([attr, value], i) => {
    if (value === undefined) return;
    names[`#fe${i}`] = attr;
    values[`:fe${i}`] = value;
    parts.push(`#fe${i} = :fe${i}`);
  });
  for (const x of extra) {
    parts.push(`(${x.expression})`);
    Object.assign(names, x.names);
    Object.assign(values, x.values);
  }
  if (parts.length === 0) return undefined;
  return { expression: parts.join(' AND '), names, ...(Object.keys(values).length ? { values } : {}) };
}

/** The range of GSI `index`'s partition `pk` (its key attributes are `<index>pk` / `<index>sk`), newest first unless told. */
export const indexRange = (index: string, pk: string, filter?: ListRange['filter'], extra: Partial<ListRange> = {}): ListRange => ({
  index,
  pkName: `${index}pk`,
  skName: `${index}sk`,
  pk,
  ...(filter ? { filter } : {}),
  ...extra,
});
