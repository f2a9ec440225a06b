export { configSchema, searchModes, DEFAULT_EMBEDDER_ID, type LociConfig, type LociConfigInput, type SearchMode } from './schema.js';
export { loadConfig, resolveConfig, environmentLayer, readConfigFile, CONFIG_FILE_NAME, type LoadConfigOptions, type ConfigLayer } from './load.js';
export { readFolderConfig, folderConfigLayers, FOLDER_CONFIG_FILE_NAME, type FolderConfigFile, type FolderConfigTrust } from './folder-config.js';
export { refusedFolderKeys, type RefusedKey } from './folder-rules.js';
export { seedAliasLayer, seedAliases } from './aliases.js';
