import { isAbsolute, resolve } from 'node:path';
import { isPlainObject } from '../errors/check-types.js';

type Raw = Record<string, unknown>;

/** `static:<file>`: a model file, as the static provider tells one from a model's name (providers.ts). */
const STATIC_FILE = /^static:(.*(?:[/\\].*|\.bin))$/i;
/** A ranker setting that names a file rather than "default" or "none" (as loadRanker tells them apart). */
const RANKER_FILE = /[/\\.]/;

/**
 * A config file's values with the files they name made absolute against `folder`, the folder
 * of that file: `"embedder": "static:./model.bin"` in ~/.config/loci/config.json is read from
 * beside it, wherever the command runs. Flags and LOCI_* variables are the shell's and keep
 * their relative paths (read from the current folder). Nothing else is changed.
 */
export function withPathsFrom(values: Raw, folder: string): Raw {
  const out: Raw = { ...values };
  const embedder = values.embedder;
  const file = typeof embedder === 'string' ? STATIC_FILE.exec(embedder)?.[1] : undefined;
  if (file !== undefined && !isAbsolute(file)) out.embedder = `static:${resolve(folder, file)}`;
  const search = values.search;
  if (isPlainObject(search) && typeof search.ranker === 'string' && RANKER_FILE.test(search.ranker) && !isAbsolute(search.ranker)) out.search = { ...search, ranker: resolve(folder, search.ranker) };
  return out;
}
