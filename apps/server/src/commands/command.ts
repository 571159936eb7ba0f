import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import type { Kith } from "@kith/core";
import { assembleKith } from "../assemble.js";
import type { ServerConfig } from "../config.js";

/** Where a command writes: lines on stdout and stderr. */
export interface CommandIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** One word of `kith` (accounts, jobs, backup, ...): its help and what it does. */
export interface Command {
  readonly name: string;
  /** One line for `kith help`. */
  readonly summary: string;
  /** The usage lines `kith help <command>` prints, one a line. */
  readonly usage: readonly string[];
  /** Runs with the words after the command's name; resolves to the exit code. */
  run(args: string[], config: ServerConfig, io: CommandIo): Promise<number>;
}

/** A command used wrongly: printed in one line with a pointer to the help, exit 64 (sysexits' EX_USAGE). */
export class UsageError extends Error {}

/** The command's options and positionals, node:util's parseArgs strictly; a bad option is a UsageError. */
export function parse<T extends ParseArgsOptionsConfig>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The one positional a command takes (a username, a job id, a path). */
export function onePositional(positionals: readonly string[], what: string): string {
  const [value] = positionals;
  if (!value || positionals.length > 1) throw new UsageError(`${what}`);
  return value;
}

/** Runs work with a Kith assembled from the configuration (its workers not started), closed after. */
export async function withKith<T>(config: ServerConfig, work: (kith: Kith) => Promise<T>): Promise<T> {
  const kith = await assembleKith(config);
  try {
    return await work(kith);
  } finally {
    await kith.close();
  }
}
