export { loadConfig, ConfigError, CONFIG_VARIABLES, type ServerConfig, type LogLevel } from "./config.js";
export { assembleKith, openStorage, queueFor } from "./assemble.js";
export { serve, type ServeRole, type ServeOptions, type RunningServer } from "./serve.js";
export { runCli, type CliIo } from "./cli.js";
export { configureLogging } from "./logging.js";
