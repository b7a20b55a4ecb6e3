/**
 * The generated files of the documentation (build time): what `npm run openapi` writes and
 * what test/docs/openapi.test.ts checks are up to date.
 *
 * - functions/openapi/openapi.sandbox.json, openapi.live.json: the OpenAPI documents
 *   (bundled by the GET /v1/openapi.json Lambda, which serves its stage's).
 * - functions/openapi/docs-page.json: the GET /docs page, brotli-compressed (bundled by the
 *   docs Lambda). Fresh when the HTML it holds is the one built from the installed renderer
 *   (compressed bytes may differ between zlib versions, so they are not compared).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetHtml, buildDocsPage, loadRenderer, toAsset, type DocsPageAsset } from './docs-page';
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

export async function buildArtifacts(): Promise<{ artifacts: Artifact[]; warnings: Warning[] }> {
  const artifacts: Artifact[] = [];
  const warnings: Warning[] = [];
  for (const stage of STAGES) {
    const generated = await generateOpenApi(stage);
    warnings.push(...generated.warnings);
    const content = serialize(generated.document);
    artifacts.push({ path: documentPath(stage), content, isFresh: (existing) => existing === content });
  }
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
