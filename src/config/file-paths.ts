import { isAbsolute, resolve } from 'node:path';
import { isPlainObject } from '../errors/check-types.js';

type Raw = Record<string, unknown>;

/** Whether the model id of `static:<id>` names a model file (a path, or a `.bin`) rather than a model: the static provider reads it so (providers.ts). */
export function namesStaticModelFile(modelId: string): boolean {
  return /[/\\]|\.bin$/i.test(modelId);
}

/** Whether a `search.ranker` setting names a model file rather than "default" or "none": loadRanker reads it so (ranker/model.ts). */
export function namesRankerFile(setting: string): boolean {
  return /[/\\.]/.test(setting);
}

/**
 * A config file's values with the files they name made absolute against `folder`, the folder
 * of that file: `"embedder": "static:./model.bin"` in ~/.config/loci/config.json is read from
 * beside it, wherever the command runs. Flags and LOCI_* variables are the shell's and keep
 * their relative paths (read from the current folder). Nothing else is changed.
 */
export function withPathsFrom(values: Raw, folder: string): Raw {
  const out: Raw = { ...values };
  const embedder = values.embedder;
  const file = typeof embedder === 'string' ? /^static:(.*)$/i.exec(embedder)?.[1] : undefined;
  if (file !== undefined && namesStaticModelFile(file) && !isAbsolute(file)) out.embedder = `static:${resolve(folder, file)}`;
  const search = values.search;
  if (isPlainObject(search) && typeof search.ranker === 'string' && namesRankerFile(search.ranker) && !isAbsolute(search.ranker)) out.search = { ...search, ranker: resolve(folder, search.ranker) };
  return out;
}
