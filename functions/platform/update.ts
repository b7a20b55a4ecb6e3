/**
 * Update expressions from a plain description of a change (SET, REMOVE, ADD) with generated
 * placeholders (`#u0`, `:u0`, ...), and the same change applied in memory (what the update
 * stores, for replies and events). An attribute set to `undefined` is left out.
 */
export interface Change {
  set?: Record<string, unknown>;
  remove?: string[];
  add?: Record<string, number>;
}

export function updateParts(c: Change): { expr: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  const adds: string[] = [];
  let i = 0;
  for (const [k, v] of Object.entries(c.set ?? {})) {
    if (v === undefined) continue;
    names[`#u${i}`] = k;
    values[`:u${i}`] = v;
    sets.push(`#u${i} = :u${i}`);
    i++;
  }
  for (const k of c.remove ?? []) {
    names[`#u${i}`] = k;
    removes.push(`#u${i}`);
    i++;
  }
  for (const [k, v] of Object.entries(c.add ?? {})) {
    names[`#u${i}`] = k;
    values[`:u${i}`] = v;
    adds.push(`#u${i} :u${i}`);
    i++;
  }
  const expr = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
    adds.length ? `ADD ${adds.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { expr, names, values };
}

/** `item` with the change applied, as the update would store it. */
export function applyChange<T extends object>(item: T, c: Change): T {
  const next = { ...item } as Record<string, unknown>;
  for (const [k, v] of Object.entries(c.set ?? {})) if (v !== undefined) next[k] = v;
  for (const k of c.remove ?? []) delete next[k];
  for (const [k, v] of Object.entries(c.add ?? {})) next[k] = ((next[k] as number | undefined) ?? 0) + v;
  return next as T;
}
