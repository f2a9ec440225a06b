export { configSchema, searchModes, DEFAULT_EMBEDDER_ID, type LociConfig, type LociConfigInput, type SearchMode } from './schema.js';
export { loadConfig, resolveConfig, environmentLayer, readConfigFile, CONFIG_FILE_NAME, type LoadConfigOptions, type ConfigLayer } from './load.js';
