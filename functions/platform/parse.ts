/**
 * Items read back from the table are parsed, not cast: a read module declares the shape it
 * relies on and `parseItem` checks it, so a corrupt or foreign item fails loudly at the
 * boundary (an internal error naming the item and the field) instead of somewhere later.
 * Cheap on purpose (no schema library: read handlers stay small and start fast).
 */
export type FieldRule =
  | 'string'
  | 'number'
  | 'boolean'
  | 'object'
  | 'string?'
  | 'number?'
  | 'boolean?'
  | 'object?'
  /** string or null */
  | 'string|null'
  | 'number|null'
  | readonly string[];

export type Shape = Record<string, FieldRule>;

export class CorruptItemError extends Error {
  constructor(what: string, key: string, field: string, expected: string) {
    super(`${what} item ${key}: field ${field} is not ${expected}`);
    this.name = 'CorruptItemError';
  }
}

function fits(v: unknown, rule: FieldRule): boolean {
  if (Array.isArray(rule)) return typeof v === 'string' && rule.includes(v);
  const optional = typeof rule === 'string' && rule.endsWith('?');
  const base = optional ? (rule as string).slice(0, -1) : (rule as string);
  if (optional && v === undefined) return true;
  const [type, orNull] = base.split('|');
  if (orNull === 'null' && v === null) return true;
  if (type === 'object') return typeof v === 'object' && v !== null;
  return typeof v === type;
}

/** The item as T once every field of `shape` fits; undefined stays undefined. */
export function parseItem<T>(what: string, shape: Shape, item: Record<string, unknown> | undefined): T | undefined {
  if (item === undefined) return undefined;
  for (const [field, rule] of Object.entries(shape)) {
    if (!fits(item[field], rule)) {
      throw new CorruptItemError(
        what,
        `${String(item.pk)}/${String(item.sk)}`,
        field,
        typeof rule === 'string' ? rule : `one of ${rule.join(', ')}`,
      );
    }
  }
  return item as T;
}
