import { existsSync } from "node:fs";
import module from "node:module";
import { coreMigrations, defaultModules, isKithError, migrationsWithModules } from "@kith/core";
import { openStorage } from "./assemble.js";
import { accountsCommand } from "./commands/accounts.js";
import { backupCommand, restoreCommand } from "./commands/backup.js";
import { type Command, UsageError, parse } from "./commands/command.js";
import { doctorCommand } from "./commands/doctor.js";
import { emojiCommand } from "./commands/emoji.js";
import { jobsCommand } from "./commands/jobs.js";
import { settingsCommand } from "./commands/settings.js";
import { CONFIG_VARIABLES, ConfigError, type ServerConfig, loadConfig } from "./config.js";
import { configureLogging } from "./logging.js";
import { findProjectRoot } from "./project-root.js";
import { type ServeRole, serve } from "./serve.js";
import { settleMemoryAfterStart } from "./settle-memory.js";
import { KITH_VERSION } from "./version.js";

/**
 * `kith`, the server's command line. Where it overlaps Mastodon's `tootctl`
 * (accounts, settings registrations, emoji import) it takes the same words
 * and prints the same lines, so scripts written for tootctl work. Each
 * command is a file of ./commands; every change goes through the core's
 * services, as the API's do.
 */

export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** The checkout a relative KITH_DATA_DIR is read from; null when installed as a package. @default found from this file */
  readonly projectRoot?: string | null;
  /** Where a relative KITH_DATA_DIR is read from outside a checkout. @default process.cwd() */
  readonly cwd?: string;
}

const serveCommand: Command = {
  name: "serve",
  summary: "Run the server",
  usage: ["serve [--role=web|worker|all]", "    Run the HTTP server, the job workers, or both (default all)"],
  async run(args, config) {
    const { values } = parse(args, { role: { type: "string", default: "all" } });
    const role = values.role as string;
    if (!["web", "worker", "all"].includes(role)) throw new UsageError("--role takes web, worker or all");
    await serve(config, role as ServeRole);
    // What start-up compiled goes to Node's compile cache now (when `kith` enabled it), not only when the process exits.
    module.flushCompileCache?.();
    if (config.optimisations?.isOn("v8-settle-memory") ?? true) settleMemoryAfterStart();
    return 0;
  },
};

const migrateCommand: Command = {
  name: "migrate",
  summary: "Apply pending database migrations",
  usage: ["migrate", "    Apply pending database migrations (serve does so at start too)"],
  async run(args, config, io) {
    parse(args, {});
    const storage = await openStorage(config);
    try {
      // The server composes the default modules, so their tables are made with the core's.
      const { applied } = await storage.migrate(migrationsWithModules(coreMigrations, defaultModules));
      io.out(applied.length ? `Applied: ${applied.join(", ")}` : "Up to date");
    } finally {
      await storage.close();
    }
    return 0;
  },
};

const versionCommand: Command = {
  name: "version",
  summary: "Print Kith's version",
  usage: ["version", "    Print Kith's version (also kith --version)"],
  async run(_args, _config, io) {
    io.out(KITH_VERSION);
    return 0;
  },
};

const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  accountsCommand,
  settingsCommand,
  emojiCommand,
  jobsCommand,
  backupCommand,
  restoreCommand,
  doctorCommand,
  versionCommand,
];

function commandNamed(name: string): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}

function usage(): string {
  return `Usage: kith <command> [arguments]   (kith help <command> for its arguments)

${COMMANDS.map((command) => `  ${command.name.padEnd(12)} ${command.summary}`).join("\n")}
  ${"help".padEnd(12)} This text, or a command's

Configuration comes from environment variables:
${CONFIG_VARIABLES.map((v) => `  ${v.name.padEnd(32)} ${v.meaning} (default ${v.default})`).join("\n")}`;
}

/** `kith help [command]`: the list of commands, or one command's usage. */
function help(topic: string | undefined, io: CliIo): number {
  if (topic === undefined) {
    io.out(usage());
    return 0;
  }
  const command = commandNamed(topic);
  if (!command) {
    io.err(`kith: unknown command ${topic}`);
    io.err("Run 'kith help' for the commands.");
    return 64;
  }
  // Lines indented in `usage` describe the line above them.
  const lines = command.usage.map((line) => (line.startsWith(" ") ? `    ${line.trim()}` : `  kith ${line}`));
  io.out(`${command.summary}\n\nUsage:\n${lines.join("\n")}`);
  return 0;
}

/**
 * Commands that may make a new database (a self-hoster starts with `accounts create` or `serve`); the others would
 * only find an empty one where none was meant to be.
 */
const CREATING_COMMANDS = new Set(["serve", "migrate", "restore", "accounts create"]);

/** Why a command cannot run on the configured SQLite database (there is none yet), or null. */
function missingDatabase(argv: readonly string[], config: ServerConfig): string | null {
  const [command = "", action = ""] = argv;
  if (CREATING_COMMANDS.has(command) || CREATING_COMMANDS.has(`${command} ${action}`) || command === "version") return null;
  if (config.database.kind !== "sqlite" || existsSync(config.database.filename)) return null;
  return `no database at ${config.database.filename}: set KITH_DATA_DIR to the server's data directory, or run 'kith migrate' to make a new one`;
}

/** Runs one command; resolves to the process exit code. `serve` resolves once the server is listening. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === "--version" || name === "-v") return versionCommand.run([], {} as ServerConfig, io);
  if (name === "help" || name === "--help" || name === "-h") return help(args[0], io);
  if (!name) {
    io.out(usage());
    return 64;
  }
  const command = commandNamed(name);
  if (!command) {
    io.err(`kith: unknown command ${name}`);
    io.err("Run 'kith help' for the commands.");
    return 64;
  }
  if (args.includes("--help") || args.includes("-h")) return help(name, io);
  let config: ServerConfig;
  try {
    const root = io.projectRoot === undefined ? findProjectRoot() : io.projectRoot;
    config = loadConfig(io.env, { baseDir: root ?? io.cwd ?? process.cwd() });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`kith: invalid configuration: ${error.message}`);
      return 78;
    }
    throw error;
  }
  await configureLogging(config.logLevel, config.logFormat);
  const missing = missingDatabase(argv, config);
  if (missing) {
    io.err(`kith: ${missing}`);
    return 66;
  }
  try {
    return await command.run(args, config, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`kith: ${error.message}`);
      io.err(`Run 'kith help ${name}' for its arguments.`);
      return 64;
    }
    if (isKithError(error)) {
      io.err(`kith: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
