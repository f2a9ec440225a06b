import { lockFileNames } from './file-role.js';

/** Directories never walked, whatever the ignore files say (reason `excluded-directory`). */
export const alwaysExcludedDirectories: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '.loci',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  'coverage',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.gradle',
  '.idea',
]);

/**
 * Build output folders, ignored by default as if every ignore file began with `dist/` (and the
 * rest): usually generated, but some projects keep sources there (a Gradle `build/`, a docs
 * `out/`), so `!build/` in .lociignore or .gitignore brings one back with what it holds.
 */
export const buildOutputDirectories: ReadonlySet<string> = new Set(['dist', 'build', 'out', 'target']);

/**
 * Generated files ignored by default, at the lowest precedence: a repository's own
 * `.gitignore` or `.lociignore` can re-include them with `!pattern`.
 */
export const defaultIgnorePatterns: readonly string[] = [
  // Every common package manager's lock file: machine-written, large, and never the answer.
  ...lockFileNames,
  '*.lockfile',
  '*.min.js',
  '*.min.css',
  '*.map',
];

/** Extensions that are binary without looking (reason `binary`). */
export const binaryExtensions: ReadonlySet<string> = new Set([
  // images
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.bmp',
  '.ico',
  '.icns',
  '.webp',
  '.tif',
  '.tiff',
  '.psd',
  '.heic',
  '.avif',
  // fonts
  '.woff',
  '.woff2',
  '.ttf',
  '.otf',
  '.eot',
  // archives and packages
  '.zip',
  '.gz',
  '.tgz',
  '.bz2',
  '.xz',
  '.zst',
  '.7z',
  '.rar',
  '.tar',
  '.jar',
  '.war',
  '.ear',
  '.whl',
  '.egg',
  '.deb',
  '.rpm',
  '.dmg',
  '.iso',
  '.apk',
  '.nupkg',
  // media
  '.mp3',
  '.mp4',
  '.m4a',
  '.wav',
  '.flac',
  '.ogg',
  '.opus',
  '.avi',
  '.mov',
  '.mkv',
  '.webm',
  // executables, objects, libraries, bytecode
  '.exe',
  '.dll',
  '.so',
  '.dylib',
  '.a',
  '.lib',
  '.o',
  '.obj',
  '.bin',
  '.class',
  '.pyc',
  '.pyo',
  '.wasm',
  '.node',
  '.pdb',
  // documents and data
  '.pdf',
  '.doc',
  '.docx',
  '.xls',
  '.xlsx',
  '.ppt',
  '.pptx',
  '.odt',
  '.ods',
  '.odp',
  '.sqlite',
  '.sqlite3',
  '.db',
  '.mdb',
  '.parquet',
  '.arrow',
  '.feather',
  '.npy',
  '.npz',
  '.pkl',
  '.pickle',
  '.h5',
  '.hdf5',
  '.onnx',
  '.pt',
  '.pth',
  '.safetensors',
  '.ckpt',
  '.tflite',
  '.hnsw',
]);
