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
 */
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db } from './clients';
import { table, type Item } from './table';

/** `skip + limit` (or `offset + limit`) above this is refused: use `startingAfter` (DESIGN 8.9). */
export const MAX_SKIP_WINDOW = 10_000;

/** Items read per Query when a FilterExpression discards some (each read stays bounded). */
const FILTERED_READ = 200;

export interface ListRange {
  /** The GSI (undefined: the table itself). */
  index?: string;
  /** Names of the partition and sort key attributes of that index. */
  pkName: string;
  skName: string;
  pk: string;
  /** Inclusive bounds on the sort key. */
  lo?: string;
  hi?: string;
  /** Oldest first (default: newest first). */
  ascending?: boolean;
  /** A FilterExpression with its names and values (names `#f…`, values `:f…`, to stay clear of the key's). */
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
  /** Attributes to read (undefined: all of them). */
  projection?: readonly string[];
  /** Strongly consistent reads (the table only; GSIs cannot). */
  consistent?: boolean;
  /** Which bound excludes its own value (a cursor's position; set by `pageAfter`). */
  exclusive?: 'lo' | 'hi';
}

/** Whether `item` belongs to the range's partition: the only items a cursor may name. */
export const inPartition = (range: ListRange, item: Item | undefined): item is Item =>
  item !== undefined && item[range.pkName] === range.pk && typeof item[range.skName] === 'string';

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

/**
 * The page after `after` (an item of this partition: check with `inPartition` first), in the
 * range's order. A cursor outside the sort key bounds still has a place in that order: before
 * the range (the page starts at its beginning) or after it (nothing follows).
 */
export async function pageAfter<T>(range: ListRange, limit: number, after: Item): Promise<{ items: T[]; hasMore: boolean }> {
  const sk = after[range.skName] as string;
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

/** How many items of the range match (a `Select: COUNT` Query, page by page; no item is returned). */
export async function countMatches(range: ListRange): Promise<number> {
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
  const [read, total] = await Promise.all([readMatches<T>(range, skip + limit), countMatches(range)]);
  const items = read.items.slice(skip);
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
