import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { backupSqliteDatabase } from "@kith/storage-sqlite";
import type { ServerConfig } from "../config.js";
import { KITH_VERSION } from "../version.js";
import { type Command, type CommandIo, UsageError, onePositional, parse } from "./command.js";

/**
 * `kith backup DIR` and `kith restore DIR`: a consistent copy of the server's data while it runs, and back. The
 * database is copied with SQLite's online backup API, or `pg_dump` for PostgreSQL (custom format, read in one
 * snapshot); the media directory after it, so that every file a copied row names is there (files are written before
 * their rows). Media in S3 is not copied: the bucket keeps it, and the manifest says so.
 */

const MANIFEST = "kith-backup.json";
const SQLITE_FILE = "kith.sqlite";
const PG_DUMP_FILE = "kith.pgdump";
const MEDIA_DIRECTORY = "media";

interface Manifest {
  readonly kithVersion: string;
  readonly createdAt: string;
  readonly database: "sqlite" | "postgres";
  readonly media: "local" | "s3";
}

/** Runs a PostgreSQL client program (pg_dump, pg_restore); its stderr becomes the error on failure. */
function runProgram(program: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", (error) => reject(new Error(`${program} could not run (${error.message}); install PostgreSQL's client programs`)));
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${program} failed: ${stderr.trim().split("\n")[0] ?? code}`))));
  });
}

async function isEmptyOrMissing(directory: string): Promise<boolean> {
  if (!existsSync(directory)) return true;
  return (await readdir(directory)).length === 0;
}

export async function backup(config: ServerConfig, target: string): Promise<Manifest> {
  if (!(await isEmptyOrMissing(target))) throw new UsageError(`backup writes into a new or empty directory; ${target} is not`);
  await mkdir(target, { recursive: true });
  if (config.database.kind === "sqlite") await backupSqliteDatabase(config.database.filename, join(target, SQLITE_FILE));
  else
    await runProgram("pg_dump", [
      "--format=custom",
      "--no-owner",
      "--no-privileges",
      `--file=${join(target, PG_DUMP_FILE)}`,
      config.database.url,
    ]);
  if (config.blob.kind === "local" && existsSync(config.blob.directory)) {
    await cp(config.blob.directory, join(target, MEDIA_DIRECTORY), { recursive: true });
  }
  const manifest: Manifest = {
    kithVersion: KITH_VERSION,
    createdAt: new Date().toISOString(),
    database: config.database.kind,
    media: config.blob.kind,
  };
  // Written last: a directory with a manifest holds a whole backup.
  await writeFile(join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function readManifest(source: string): Promise<Manifest> {
  try {
    return JSON.parse(await readFile(join(source, MANIFEST), "utf8")) as Manifest;
  } catch {
    throw new UsageError(`${source} holds no whole backup (no ${MANIFEST})`);
  }
}

export async function restore(config: ServerConfig, source: string): Promise<Manifest> {
  const manifest = await readManifest(source);
  if (manifest.database !== config.database.kind) {
    throw new UsageError(`the backup is of a ${manifest.database} database, the configuration names ${config.database.kind}`);
  }
  if (config.blob.kind === "local" && !(await isEmptyOrMissing(config.blob.directory))) {
    throw new UsageError(`restore writes media into an empty directory; ${config.blob.directory} is not`);
  }
  if (config.database.kind === "sqlite") {
    if (existsSync(config.database.filename)) throw new UsageError(`restore makes a new database; ${config.database.filename} exists`);
    await mkdir(config.dataDir, { recursive: true });
    await backupSqliteDatabase(join(source, SQLITE_FILE), config.database.filename);
  } else {
    // Into an empty database: pg_restore stops at the first object that exists already.
    await runProgram("pg_restore", [
      "--no-owner",
      "--no-privileges",
      "--exit-on-error",
      "--single-transaction",
      `--dbname=${config.database.url}`,
      join(source, PG_DUMP_FILE),
    ]);
  }
  if (config.blob.kind === "local" && existsSync(join(source, MEDIA_DIRECTORY))) {
    await cp(join(source, MEDIA_DIRECTORY), config.blob.directory, { recursive: true });
  }
  return manifest;
}

async function runBackup(args: string[], config: ServerConfig, io: CommandIo): Promise<number> {
  const { positionals } = parse(args, {});
  const target = onePositional(positionals, "backup takes one DIRECTORY to write the backup into");
  const manifest = await backup(config, target);
  io.out(`OK, ${manifest.database} database${manifest.media === "local" ? " and media" : " (media stays in the S3 bucket)"} in ${target}`);
  return 0;
}

async function runRestore(args: string[], config: ServerConfig, io: CommandIo): Promise<number> {
  const { positionals } = parse(args, {});
  const source = onePositional(positionals, "restore takes one DIRECTORY written by kith backup");
  const manifest = await restore(config, source);
  io.out(`OK, restored the backup of ${manifest.createdAt} (Kith ${manifest.kithVersion})`);
  return 0;
}

export const backupCommand: Command = {
  name: "backup",
  summary: "Copy the database and media while the server runs",
  usage: [
    "backup DIRECTORY",
    "    Write a consistent copy of the database (SQLite's online backup, or pg_dump) and the local media into a new directory",
  ],
  run: runBackup,
};

export const restoreCommand: Command = {
  name: "restore",
  summary: "Bring a backup back into an empty data directory or database",
  usage: [
    "restore DIRECTORY",
    "    Restore what kith backup wrote: into a data directory without a database (SQLite), or an empty PostgreSQL database (pg_restore)",
  ],
  run: runRestore,
};
