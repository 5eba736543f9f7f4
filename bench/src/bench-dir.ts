import { fileURLToPath } from 'node:url';

/** The bench package's folder (results, METHOD.md, child scripts). */
export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
