/**
 * The generated files of the documentation (build time): what `npm run openapi` writes and
 * what test/docs/openapi.test.ts checks are up to date.
 *
 * - functions/openapi/openapi.sandbox.json, openapi.live.json: the OpenAPI documents (read
 *   by the SDK generator, the tests and people).
 * - functions/openapi/openapi-served.json: both documents as GET /v1/openapi.json serves
 *   them (compact JSON), brotli-compressed: the only form the Lambda bundles (~70 KB instead
 *   of ~560 KB for the two documents as JavaScript objects). Fresh when the bytes it holds
 *   are the documents' (compressed bytes are not compared, as for the docs page).
 * - functions/openapi/docs-page.json: the GET /docs page, brotli-compressed (bundled by the
 *   docs Lambda). Fresh when the HTML it holds is the one built from the installed renderer
 *   (compressed bytes may differ between zlib versions, so they are not compared).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetHtml, brotliText, buildDocsPage, loadRenderer, toAsset, type DocsPageAsset } from './docs-page';
import { generateOpenApi, serialize, type Stage, type Warning } from './generate';

export const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

export interface Artifact {
  /** Path from the repository root. */
  path: string;
  content: string;
  /** Whether the file's current text is equivalent to `content`. */
  isFresh(existing: string | undefined): boolean;
}

export const STAGES: readonly Stage[] = ['sandbox', 'live'];
export const documentPath = (stage: Stage) => `functions/openapi/openapi.${stage}.json`;
export const DOCS_PAGE_PATH = 'functions/openapi/docs-page.json';
export const SERVED_DOCUMENTS_PATH = 'functions/openapi/openapi-served.json';

/** One stage's document as served: the compact JSON's sha256 (the ETag), size, and brotli bytes (base64). */
export interface ServedDocument {
  sha256: string;
  bytes: number;
  brotli: string;
}

function servedDocument(document: unknown): ServedDocument {
  const bytes = Buffer.from(JSON.stringify(document), 'utf8');
  return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, brotli: brotliText(bytes).toString('base64') };
}

export async function buildArtifacts(): Promise<{ artifacts: Artifact[]; warnings: Warning[] }> {
  const artifacts: Artifact[] = [];
  const warnings: Warning[] = [];
  const served: Partial<Record<Stage, ServedDocument>> = {};
  for (const stage of STAGES) {
    const generated = await generateOpenApi(stage);
    warnings.push(...generated.warnings);
    const content = serialize(generated.document);
    artifacts.push({ path: documentPath(stage), content, isFresh: (existing) => existing === content });
    served[stage] = servedDocument(generated.document);
  }
  artifacts.push({
    path: SERVED_DOCUMENTS_PATH,
    content: `${JSON.stringify(served, null, 2)}\n`,
    isFresh: (existing) => {
      if (existing === undefined) return false;
      try {
        const old = JSON.parse(existing) as Record<Stage, ServedDocument>;
        return STAGES.every((stage) => {
          const now = served[stage]!;
          const was = old[stage];
          const bytes = was && brotliDecompressSync(Buffer.from(was.brotli, 'base64'));
          return was?.sha256 === now.sha256 && was.bytes === now.bytes && createHash('sha256').update(bytes).digest('hex') === now.sha256;
        });
      } catch {
        return false;
      }
    },
  });
  const renderer = loadRenderer();
  const page = buildDocsPage(renderer);
  const asset = toAsset(renderer, page);
  artifacts.push({
    path: DOCS_PAGE_PATH,
    content: `${JSON.stringify(asset, null, 2)}\n`,
    isFresh: (existing) => {
      if (existing === undefined) return false;
      try {
        const old = JSON.parse(existing) as DocsPageAsset;
        return (
          JSON.stringify(old.renderer) === JSON.stringify(asset.renderer) &&
          old.sha256 === asset.sha256 &&
          old.csp === asset.csp &&
          old.bytes === asset.bytes &&
          assetHtml(old) === page.html
        );
      } catch {
        return false;
      }
    },
  });
  return { artifacts, warnings };
}

export function readExisting(path: string): string | undefined {
  try {
    return readFileSync(resolve(REPO_ROOT, path), 'utf8');
  } catch {
    return undefined;
  }
}
