/**
 * bench/latency.svg: p50 and p99 latency per endpoint class next to its raw-DynamoDB floor
 * (same concurrency, same run), on a log scale. Hand-written SVG, no dependency.
 *
 *   npx tsx bench/chart.ts            (re-draws from bench/results.json)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR } from './lib/results';

export interface ChartClass {
  label: string;
  endpoint: { rps: number; latency: { p50: number; p99: number } };
  floor: { rps: number; latency: { p50: number; p99: number } };
  ratio: number;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

const COLORS = { endpointP50: '#1f6feb', endpointP99: '#9ec5fe', floorP50: '#2da44e', floorP99: '#a6e3b6' };

export function latencyChart(classes: ChartClass[], subtitle: string): string {
  const width = 980;
  const left = 190;
  const right = 120;
  const top = 86;
  const barH = 13;
  const gap = 3;
  const groupGap = 30;
  const groupH = 4 * (barH + gap) + 16;
  const height = top + classes.length * (groupH + groupGap) + 60;
  const plotW = width - left - right;
  const all = classes
    .flatMap((c) => [c.endpoint.latency.p50, c.endpoint.latency.p99, c.floor.latency.p50, c.floor.latency.p99])
    .filter((x) => x > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.max(0.1, Math.min(...all))));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all, lo * 10)));
  const x = (ms: number) => left + ((Math.log10(Math.max(ms, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotW;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  out.push(
    `<text x="${left}" y="24" font-size="16" font-weight="600">Latency per endpoint class vs raw DynamoDB Local floor (ms, log scale)</text>`,
  );
  out.push(`<text x="${left}" y="44" fill="#57606a">${esc(subtitle)}</text>`);
  // grid
  const plotBottom = height - 50;
  for (let d = lo; d <= hi; d *= 10) {
    for (const m of [1, 2, 5]) {
      const v = d * m;
      if (v > hi) break;
      const gx = x(v);
      out.push(
        `<line x1="${gx.toFixed(1)}" y1="${top - 8}" x2="${gx.toFixed(1)}" y2="${plotBottom}" stroke="${m === 1 ? '#d0d7de' : '#eef1f4'}"/>`,
      );
      if (m === 1 || m === 5)
        out.push(
          `<text x="${gx.toFixed(1)}" y="${plotBottom + 16}" text-anchor="middle" fill="#57606a">${v >= 1 ? v : v.toFixed(1)}</text>`,
        );
    }
  }
  out.push(`<text x="${left + plotW / 2}" y="${plotBottom + 34}" text-anchor="middle" fill="#57606a">milliseconds</text>`);
  classes.forEach((c, i) => {
    const gy = top + i * (groupH + groupGap);
    out.push(`<text x="${left - 10}" y="${gy + 12}" text-anchor="end" font-weight="600">${esc(c.label)}</text>`);
    out.push(
      `<text x="${left - 10}" y="${gy + 28}" text-anchor="end" fill="#57606a">${c.endpoint.rps} req/s · floor ${c.floor.rps}/s</text>`,
    );
    out.push(`<text x="${left - 10}" y="${gy + 44}" text-anchor="end" fill="#57606a">ratio ${(c.ratio * 100).toFixed(0)}% of floor</text>`);
    const bars: [string, number, string][] = [
      ['endpoint p50', c.endpoint.latency.p50, COLORS.endpointP50],
      ['endpoint p99', c.endpoint.latency.p99, COLORS.endpointP99],
      ['floor p50', c.floor.latency.p50, COLORS.floorP50],
      ['floor p99', c.floor.latency.p99, COLORS.floorP99],
    ];
    bars.forEach(([name, v, color], j) => {
      const by = gy + j * (barH + gap);
      const w = Math.max(1, x(v) - left);
      out.push(
        `<rect x="${left}" y="${by}" width="${w.toFixed(1)}" height="${barH}" fill="${color}"><title>${esc(`${c.label} ${name}: ${fmt(v)} ms`)}</title></rect>`,
      );
      out.push(`<text x="${(left + w + 4).toFixed(1)}" y="${by + barH - 2}" fill="#24292f">${fmt(v)}</text>`);
    });
  });
  // legend
  const ly = 66;
  let lx = left;
  for (const [name, color] of [
    ['endpoint p50', COLORS.endpointP50],
    ['endpoint p99', COLORS.endpointP99],
    ['floor p50', COLORS.floorP50],
    ['floor p99', COLORS.floorP99],
  ] as const) {
    out.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${color}"/><text x="${lx + 16}" y="${ly}">${name}</text>`);
    lx += 105;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = JSON.parse(readFileSync(join(BENCH_DIR, 'results.json'), 'utf8')) as {
    endpoints: { classes: ChartClass[]; config: { concurrency: number } };
    recordedAt: string;
    machine: { loadAverage: number[]; cpus: number };
  };
  const svg = latencyChart(
    r.endpoints.classes,
    `concurrency ${r.endpoints.config.concurrency}, ${r.recordedAt}, ${r.machine.cpus} CPUs, load ${r.machine.loadAverage.join(' ')}`,
  );
  writeFileSync(join(BENCH_DIR, 'latency.svg'), svg);
  console.log(`wrote ${join(BENCH_DIR, 'latency.svg')}`);
}
