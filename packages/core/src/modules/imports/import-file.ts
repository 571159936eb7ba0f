import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { type Info, parse } from "csv-parse";
import { KithError } from "../../domain/errors.js";
import { importErrors } from "./import-codes.js";
import {
  FIELD_BY_HEADER,
  type ImportKind,
  type ImportRowData,
  KIND_COLUMNS,
  KNOWN_FIRST_HEADERS,
  type RowField,
  fieldLooksRight,
} from "./import-kinds.js";

/** Mastodon's limits: a file of at most 20 MB and 20,000 rows. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
export const MAX_ROWS = 20_000;

export interface ParsedRow {
  /** The file's line the row is on. */
  readonly line: number;
  readonly data: ImportRowData;
}

function invalid(message: string): KithError {
  return new KithError(importErrors["import.invalid_file"], { message });
}

/** How a cell is kept: Mastodon drops a leading `@` of an address and lower-cases a domain. */
function cleanCell(field: RowField, value: string): string {
  const trimmed = value.trim();
  if (field === "acct") return trimmed.replace(/^@/, "");
  if (field === "domain") return trimmed.toLowerCase();
  return trimmed;
}

/** The fields of the header row, refusing a header of another kind's file. */
function fieldsOfHeader(kind: ImportKind, header: readonly string[]): (RowField | null)[] {
  const columns = KIND_COLUMNS[kind];
  const fields = header.map((name) => FIELD_BY_HEADER[name.trim().toLowerCase()] ?? null);
  const foreign = fields.filter((field): field is RowField => field !== null && !columns.columns.includes(field));
  const missing = columns.required.filter((field) => !fields.includes(field));
  if (foreign.length > 0 || missing.length > 0) {
    throw invalid(`The file's header (${header.join(",")}) is not that of a ${kind} file`);
  }
  return fields;
}

function rowOf(fields: readonly (RowField | null)[], record: readonly string[]): ImportRowData {
  const data: ImportRowData = {};
  fields.forEach((field, index) => {
    const value = record[index];
    if (field !== null && value !== undefined) data[field] = cleanCell(field, value);
  });
  return data;
}

/**
 * Reads an uploaded CSV file as rows of `kind`, streaming: the bytes are
 * decoded (refused if not UTF-8) and parsed as they come, and reading stops
 * past the row limit. A first row of Mastodon's header names is the header
 * (its columns in any order); otherwise the file has none and its columns are
 * the kind's, in Mastodon's order. Blank lines are skipped. A file of another
 * kind (another kind's header, or a first row whose value has another shape),
 * a malformed or empty one, or one over the limits is refused with 422.
 */
export async function readImportFile(kind: ImportKind, file: Blob): Promise<ParsedRow[]> {
  if (file.size > MAX_FILE_BYTES) throw new KithError(importErrors["import.file_too_large"]);
  const text = file.stream().pipeThrough(new TextDecoderStream("utf-8", { fatal: true }));
  const source = Readable.fromWeb(text as unknown as NodeReadableStream<string>);
  const parser = source.pipe(
    parse({ bom: true, skip_empty_lines: true, skip_records_with_empty_values: true, relax_column_count: true, info: true }),
  );
  // A pipe does not carry the source's failure (bytes that are not UTF-8) on: the parser is ended with it.
  source.on("error", (error) => parser.destroy(error));
  const columns = KIND_COLUMNS[kind];
  let fields: (RowField | null)[] | null = null;
  const rows: ParsedRow[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      if (record.some((cell) => cell.includes("\u0000"))) throw invalid("The file is not text");
      if (fields === null) {
        const first = record[0]?.trim().toLowerCase() ?? "";
        if (KNOWN_FIRST_HEADERS.has(first)) {
          fields = fieldsOfHeader(kind, record);
          continue;
        }
        fields = [...columns.columns];
      }
      const data = rowOf(fields, record);
      if (rows.length === 0) checkFirstRow(kind, data);
      rows.push({ line: info.lines, data });
      if (rows.length > MAX_ROWS) throw new KithError(importErrors["import.too_many_rows"]);
    }
  } catch (error) {
    source.destroy();
    parser.destroy();
    if (error instanceof KithError) throw error;
    throw invalid(`The file is not CSV: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (rows.length === 0) throw new KithError(importErrors["import.empty_file"]);
  return rows;
}

/** The first data row tells a file of another kind: its values must have the shapes of this kind's. */
function checkFirstRow(kind: ImportKind, data: ImportRowData): void {
  for (const field of KIND_COLUMNS[kind].required) {
    const value = data[field];
    if (value === undefined || value === "" || !fieldLooksRight(field, value)) {
      throw invalid(`The file's first row is not a row of a ${kind} file`);
    }
  }
}
