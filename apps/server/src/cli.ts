import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import module from "node:module";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { type RegistrationMode, coreMigrations, customEmojisModule, defaultModules, isKithError, migrationsWithModules } from "@kith/core";
import { assembleKith, openStorage } from "./assemble.js";
import { CONFIG_VARIABLES, ConfigError, type ServerConfig, loadConfig } from "./config.js";
import { configureLogging } from "./logging.js";
import { findProjectRoot } from "./project-root.js";
import { type ServeRole, serve } from "./serve.js";
import { settleMemoryAfterStart } from "./settle-memory.js";
import { KITH_VERSION } from "./version.js";

/**
 * `kith`, the server's command line. Where it overlaps Mastodon's `tootctl`
 * (accounts create/modify, settings registrations, emoji import) it takes
 * the same words and prints the same lines, so scripts written for tootctl
 * work.
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

const USAGE = `Usage: kith <command>

  serve [--role=web|worker|all]     Run the HTTP server, the job workers, or both (default all)
  migrate                           Apply pending database migrations
  accounts create USERNAME --email=EMAIL [--confirmed] [--role=ROLE] [--password=PASSWORD]
                                    Create a local account; prints "New password: ..." last
  accounts modify USERNAME [--role=ROLE] [--approve] [--disable] [--enable] [--confirm]
                                    Change an account's role or state
  settings registrations open|approval|close
                                    Who may sign up
  emoji import PATH [--prefix=P] [--suffix=S] [--overwrite] [--category=C] [--unlisted]
                                    Add the PNG and GIF images of a tar.gz archive as custom
                                    emojis named after their files, as tootctl does
  help                              This text

Configuration comes from environment variables:
${CONFIG_VARIABLES.map((v) => `  ${v.name.padEnd(28)} ${v.meaning} (default ${v.default})`).join("\n")}`;

class UsageError extends Error {}

function parse<T extends ParseArgsOptionsConfig>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

async function withKith<T>(config: ServerConfig, work: (kith: Awaited<ReturnType<typeof assembleKith>>) => Promise<T>): Promise<T> {
  const kith = await assembleKith(config);
  try {
    return await work(kith);
  } finally {
    await kith.close();
  }
}

const REGISTRATION_WORDS: Record<string, RegistrationMode> = { open: "open", approval: "approval", close: "closed", closed: "closed" };

async function accounts(args: string[], config: ServerConfig, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === "create") {
    const { values, positionals } = parse(rest, {
      email: { type: "string" },
      confirmed: { type: "boolean" },
      role: { type: "string" },
      password: { type: "string" },
    });
    const username = positionals[0];
    if (!username || positionals.length > 1) throw new UsageError("accounts create takes one USERNAME");
    if (typeof values.email !== "string") throw new UsageError("accounts create needs --email=EMAIL");
    const { password } = await withKith(config, (kith) =>
      kith.services.accounts.createLocalAccount({
        username,
        email: values.email as string,
        confirmed: values.confirmed === true,
        ...(typeof values.role === "string" && { role: values.role }),
        ...(typeof values.password === "string" && { password: values.password }),
      }),
    );
    io.out("OK");
    io.out(`New password: ${password}`);
    return 0;
  }
  if (action === "modify") {
    const { values, positionals } = parse(rest, {
      role: { type: "string" },
      approve: { type: "boolean" },
      disable: { type: "boolean" },
      enable: { type: "boolean" },
      confirm: { type: "boolean" },
    });
    const username = positionals[0];
    if (!username || positionals.length > 1) throw new UsageError("accounts modify takes one USERNAME");
    if (values.disable && values.enable) throw new UsageError("--disable and --enable exclude each other");
    await withKith(config, (kith) =>
      kith.services.accounts.modify(username, {
        ...(typeof values.role === "string" && { role: values.role }),
        approve: values.approve === true,
        disable: values.disable === true,
        enable: values.enable === true,
        confirm: values.confirm === true,
      }),
    );
    io.out("OK");
    return 0;
  }
  throw new UsageError("accounts takes create or modify");
}

async function settings(args: string[], config: ServerConfig, io: CliIo): Promise<number> {
  const [name, value, ...extra] = args;
  if (name !== "registrations" || !value || extra.length) throw new UsageError("settings registrations open|approval|close");
  const mode = REGISTRATION_WORDS[value];
  if (!mode) throw new UsageError(`registrations take open, approval or close, not ${value}`);
  await withKith(config, (kith) => kith.services.settings.update({ registrationsMode: mode }));
  io.out("OK");
  return 0;
}

async function emoji(args: string[], config: ServerConfig, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action !== "import") throw new UsageError("emoji takes import");
  const { values, positionals } = parse(rest, {
    prefix: { type: "string" },
    suffix: { type: "string" },
    overwrite: { type: "boolean" },
    category: { type: "string" },
    unlisted: { type: "boolean" },
  });
  const path = positionals[0];
  if (!path || positionals.length > 1) throw new UsageError("emoji import takes one PATH, a .tar.gz archive");
  let archive: Uint8Array;
  try {
    archive = new Uint8Array(await readFile(path));
  } catch (error) {
    io.err(`kith: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    return 66;
  }
  const report = await withKith(config, async (kith) => {
    try {
      return await kith.module(customEmojisModule).importArchive(archive, {
        ...(typeof values.prefix === "string" && { prefix: values.prefix }),
        ...(typeof values.suffix === "string" && { suffix: values.suffix }),
        ...(typeof values.category === "string" && { category: values.category }),
        overwrite: values.overwrite === true,
        unlisted: values.unlisted === true,
      });
    } catch (error) {
      if (isKithError(error)) throw error;
      // Not a tar.gz archive: the file's fault, said in one line (sysexits' EX_DATAERR).
      return error instanceof Error ? error.message : String(error);
    }
  });
  if (typeof report === "string") {
    io.err(`kith: ${path}: ${report}`);
    return 65;
  }
  for (const failure of report.failed) io.err(`${failure.file}: ${failure.reason}`);
  io.out(`Imported ${report.imported.length}, skipped ${report.skipped.length}, failed to import ${report.failed.length}`);
  return 0;
}

async function runServe(args: string[], config: ServerConfig): Promise<number> {
  const { values } = parse(args, { role: { type: "string", default: "all" } });
  const role = values.role as string;
  if (!["web", "worker", "all"].includes(role)) throw new UsageError("--role takes web, worker or all");
  await serve(config, role as ServeRole);
  // What start-up compiled goes to Node's compile cache now (when `kith` enabled it), not only when the process exits.
  module.flushCompileCache?.();
  if (config.optimisations?.isOn("v8-settle-memory") ?? true) settleMemoryAfterStart();
  return 0;
}

async function migrate(config: ServerConfig, io: CliIo): Promise<number> {
  const storage = await openStorage(config);
  try {
    // The server composes the default modules, so their tables are made with the core's.
    const { applied } = await storage.migrate(migrationsWithModules(coreMigrations, defaultModules));
    io.out(applied.length ? `Applied: ${applied.join(", ")}` : "Up to date");
  } finally {
    await storage.close();
  }
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
  if (CREATING_COMMANDS.has(command) || CREATING_COMMANDS.has(`${command} ${action}`)) return null;
  if (config.database.kind !== "sqlite" || existsSync(config.database.filename)) return null;
  return `no database at ${config.database.filename}: set KITH_DATA_DIR to the server's data directory, or run 'kith migrate' to make a new one`;
}

/** Runs one command; resolves to the process exit code. `serve` resolves once the server is listening. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  if (command === "version" || command === "--version" || command === "-v") {
    io.out(KITH_VERSION);
    return 0;
  }
  if (!command || command === "help" || command === "--help" || command === "-h") {
    io.out(USAGE);
    return command ? 0 : 64;
  }
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
    switch (command) {
      case "serve":
        return await runServe(args, config);
      case "migrate":
        return await migrate(config, io);
      case "accounts":
        return await accounts(args, config, io);
      case "settings":
        return await settings(args, config, io);
      case "emoji":
        return await emoji(args, config, io);
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`kith: ${error.message}`);
      io.err("Run 'kith help' for the commands.");
      return 64;
    }
    if (isKithError(error)) {
      io.err(`kith: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
