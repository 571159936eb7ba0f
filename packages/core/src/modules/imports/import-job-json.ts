import { z } from "zod";
import { IMPORT_KINDS, IMPORT_MODES } from "./import-kinds.js";

/** A row not imported: its line in the file, what it named, and why. */
export const ImportRowErrorJson = z.object({
  row: z.number().int().describe("The line of the file the row is on"),
  account: z.string().nullable().describe("The account address, domain or status URI the row named"),
  outcome: z.enum(["skipped", "failed"]),
  reason: z.string(),
});

/** An import job as the API shows it. */
export const ImportJobJson = z.object({
  id: z.string(),
  type: z.enum(IMPORT_KINDS),
  mode: z.enum(IMPORT_MODES),
  state: z.enum(["PENDING", "PROCESSING", "FINISHED"]),
  file_name: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  progress: z.object({ processed: z.number().int(), total: z.number().int() }),
  results: z.object({ imported: z.number().int(), skipped: z.number().int(), failed: z.number().int() }),
  errors: z.array(ImportRowErrorJson).describe("The first 1000 rows not imported, in file order"),
});
export type ImportJobEntity = z.infer<typeof ImportJobJson>;
