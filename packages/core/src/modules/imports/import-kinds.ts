/**
 * The kinds of import and the CSV columns each reads, with the header names
 * Mastodon writes and reads. The spec's `followers` is a list of accounts to
 * follow (no one can make others follow them), read as Mastodon's
 * `following_accounts.csv`.
 */
export const IMPORT_KINDS = ["followers", "following", "blocks", "mutes", "domain_blocking", "bookmarks", "lists"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export const IMPORT_MODES = ["merge", "overwrite"] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/** A row's fields, by the names below. */
export type RowField = "acct" | "show_reblogs" | "notify" | "languages" | "hide_notifications" | "domain" | "uri" | "list_name";
export type ImportRowData = Partial<Record<RowField, string>>;

/** Mastodon's header names (compared case-insensitively) and the field each fills. */
export const FIELD_BY_HEADER: Readonly<Record<string, RowField>> = {
  "account address": "acct",
  "show boosts": "show_reblogs",
  "notify on new posts": "notify",
  languages: "languages",
  "hide notifications": "hide_notifications",
  "#domain": "domain",
  "#uri": "uri",
  "list name": "list_name",
};

/** A file starting with one of these has a header row; any other first cell is data, read by the kind's column order. */
export const KNOWN_FIRST_HEADERS: ReadonlySet<string> = new Set(["account address", "#domain", "#uri", "list name"]);

export interface KindColumns {
  /** The fields of a file without a header, in column order. */
  readonly columns: readonly RowField[];
  /** The fields a row must have. */
  readonly required: readonly RowField[];
  /** The fields that name the row's target: two rows with the same are one. */
  readonly key: readonly RowField[];
}

const FOLLOWING: KindColumns = {
  columns: ["acct", "show_reblogs", "notify", "languages"],
  required: ["acct"],
  key: ["acct"],
};

export const KIND_COLUMNS: Readonly<Record<ImportKind, KindColumns>> = {
  followers: FOLLOWING,
  following: FOLLOWING,
  blocks: { columns: ["acct"], required: ["acct"], key: ["acct"] },
  mutes: { columns: ["acct", "hide_notifications"], required: ["acct"], key: ["acct"] },
  domain_blocking: { columns: ["domain"], required: ["domain"], key: ["domain"] },
  bookmarks: { columns: ["uri"], required: ["uri"], key: ["uri"] },
  lists: { columns: ["list_name", "acct"], required: ["list_name", "acct"], key: ["list_name", "acct"] },
};

/** An account address as Mastodon writes it: `user@host` (a leading `@` is dropped when read). */
export function looksLikeAcct(value: string): boolean {
  return /^[A-Za-z0-9_.-]+(@[A-Za-z0-9.-]+(:\d+)?)?$/.test(value);
}

export function looksLikeDomain(value: string): boolean {
  return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d+)?$/i.test(value) && value.includes(".");
}

export function looksLikeUrl(value: string): boolean {
  return /^https?:\/\/\S+$/i.test(value) && URL.canParse(value);
}

/** Whether a row's value of `field` has the shape the field takes. */
export function fieldLooksRight(field: RowField, value: string): boolean {
  switch (field) {
    case "acct":
      return looksLikeAcct(value);
    case "domain":
      return looksLikeDomain(value);
    case "uri":
      return looksLikeUrl(value);
    default:
      return true;
  }
}

/** Mastodon's reading of a boolean cell: absent is the default, "false", "0", "f", "off" are false. */
export function readBoolean(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value.trim() === "") return fallback;
  return !["false", "0", "f", "off", "no", "n"].includes(value.trim().toLowerCase());
}

/** A `Languages` cell ("en, de") as a list; null for every language. */
export function readLanguages(value: string | undefined): string[] | null {
  const list = (value ?? "")
    .split(",")
    .map((language) => language.trim())
    .filter((language) => language.length > 0);
  return list.length > 0 ? list : null;
}
