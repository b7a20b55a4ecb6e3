/**
 * Source positions for the stack traces we log, read from the bundle's source map only when
 * an error is logged (docs/decisions/bundle-budget.md, "Source maps read on the first error").
 *
 * A Lambda bundle is minified (`index.mjs`, every frame on line 1) with its linked source map
 * beside it (`index.mjs.map`, lib/lambda.ts). `--enable-source-maps` made Node read and parse
 * that map at every cold start, before the first request (7-19 ms of a 113-120 ms init,
 * measured on three bundles), to map stacks that are almost never printed. Instead, `mapStack` rewrites each
 * `<bundle>.mjs:<line>:<column>` frame of a stack to its source file, line and column, reading
 * `<bundle>.mjs.map` on the first error an instance logs (then kept). A frame with no map, or
 * no entry in it, stays as it is; Node's own mapping (`--enable-source-maps`, tsx) is left alone.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A bundle file's parsed map, or null when it has none (cached either way). */
const maps = new Map<string, SourceMap | null>();

/** `file:///var/task/index.mjs:1:2345` or `/var/task/index.mjs:1:2345` in a stack frame. */
const FRAME = /((?:file:\/\/)?\/[^\s()]+?\.m?js):(\d+):(\d+)/g;

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null; // no map beside it (a dependency, a test run): the frame stays
    }
    maps.set(file, map);
  }
  return map;
}

/** The stack with every bundle position replaced by its source position where the map has one. */
export function mapStack(stack: string): string {
  if (process.sourceMapsEnabled) return stack;
  return stack.replace(FRAME, (frame: string, location: string, line: string, column: string) => {
    try {
      const file = location.startsWith('file://') ? fileURLToPath(location) : location;
      const origin = mapOf(file)?.findOrigin(Number(line), Number(column));
      if (!origin || !('fileName' in origin) || !origin.fileName) return frame;
      return `${origin.fileName}:${origin.lineNumber}:${origin.columnNumber}`;
    } catch {
      return frame; // never let the mapping cost the error its log line
    }
  });
}
