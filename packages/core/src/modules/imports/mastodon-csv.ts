/**
 * CSV as Mastodon writes its exports (Ruby's CSV with its defaults): fields
 * joined by commas, rows ended by "\n", a field quoted only when it holds a
 * comma, a quote or a line break (quotes doubled), an empty string as `""`,
 * an absent value as nothing, booleans as `true` and `false`.
 */
export type CsvValue = string | boolean | null;

function field(value: CsvValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value === "") return '""';
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(field).join(",")}\n`;
}

export function csvDocument(header: readonly string[] | null, rows: readonly (readonly CsvValue[])[]): string {
  return (header ? csvRow(header) : "") + rows.map(csvRow).join("");
}
