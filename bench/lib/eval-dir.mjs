// Where the benches find the dev sets (SciFact, CoSQA, LoCoMo): LOCI_EVAL_DIR, else
// ../shared/eval beside the checkout (the workplace layout). Never downloaded.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EVAL_DIR = resolve(process.env.LOCI_EVAL_DIR ?? fileURLToPath(new URL('../../../shared/eval/', import.meta.url)));

export function hasEvalData() {
  return ['scifact', 'cosqa', 'locomo'].every((set) => existsSync(resolve(EVAL_DIR, set)));
}
