import { readFile } from "node:fs/promises";
import { customEmojisModule, isKithError } from "@kith/core";
import type { ServerConfig } from "../config.js";
import { type Command, type CommandIo, UsageError, parse, withKith } from "./command.js";

async function emoji(args: string[], config: ServerConfig, io: CommandIo): Promise<number> {
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

/** `kith emoji import`, as tootctl's. */
export const emojiCommand: Command = {
  name: "emoji",
  summary: "Import custom emojis from an archive",
  usage: [
    "emoji import PATH [--prefix=P] [--suffix=S] [--overwrite] [--category=C] [--unlisted]",
    "    Add the PNG and GIF images of a tar.gz archive as custom emojis named after their files, as tootctl does",
  ],
  run: emoji,
};
