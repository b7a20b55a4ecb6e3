import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const api = process.env.IDPAY_API_URL ?? 'http://127.0.0.1:3000';

/**
 * The dashboard (DESIGN 8.4): served under /dashboard/ (local server; CloudFront on AWS).
 * `@idpay/sdk` is the repository's own SDK source (sdk/src/client.ts: the typed client with
 * idempotency keys and retries). Its webhook verifier needs node:crypto and is not imported.
 */
export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  plugins: [react()],
  resolve: { alias: { '@idpay/sdk': here('../sdk/src/client.ts') } },
  build: { outDir: here('./dist'), emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  // `npm run dashboard:dev`: hot reload, with the API and the runtime settings from `npm start`.
  server: { proxy: { '/v1': api, '/dashboard/config.json': api } },
});
