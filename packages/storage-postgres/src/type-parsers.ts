import pg from "pg";

/** PostgreSQL type OIDs whose text form the adapter reads its own way. */
const OID = {
  int8: 20,
  json: 114,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  jsonb: 3802,
} as const;

/** ISO-style text output (`DateStyle = ISO`, the default): date, time, optional fraction, optional UTC offset, optional era. */
const TIMESTAMP_TEXT =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?( BC)?$/;

/**
 * Reads a `timestamptz` or `timestamp` as the schema's convention wants it: an
 * ISO 8601 string in UTC with milliseconds, the very string that was written.
 * A `timestamp` without zone is taken as UTC, as Kith writes only UTC. The
 * session's TimeZone does not matter, since the offset in the text is applied.
 * Microseconds are truncated (Kith writes milliseconds, so nothing is lost).
 * `infinity` and `-infinity` have no ISO form and are returned as they are.
 */
export function parseTimestamp(text: string): string {
  const utc = parseUtcTimestamp(text);
  if (utc !== null) return utc;
  if (text === "infinity" || text === "-infinity") return text;
  const match = TIMESTAMP_TEXT.exec(text);
  if (!match) throw new Error(`Unrecognised PostgreSQL timestamp ${JSON.stringify(text)}; Kith needs the server's DateStyle to be ISO`);
  const [
    ,
    year = "",
    month = "",
    day = "",
    hour = "",
    minute = "",
    second = "",
    fraction = "",
    sign,
    offsetHours = "0",
    offsetMinutes = "0",
    offsetSeconds = "0",
    era,
  ] = match;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter maps years 0-99 to 1900-1999. Year 1 BC is year 0.
  date.setUTCFullYear(era ? 1 - Number(year) : Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), Number(fraction.padEnd(3, "0").slice(0, 3)));
  if (sign) {
    const offsetMs = (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * 1000;
    date.setTime(date.getTime() - (sign === "+" ? offsetMs : -offsetMs));
  }
  return date.toISOString();
}

/**
 * The common case without a regular expression or a Date: a four-digit year
 * in UTC (`+00`, the output of a session whose TimeZone is UTC), which only
 * needs rearranging into the ISO form. Each row of a page has several
 * timestamps, and the general path cost a tenth of a timeline request's CPU.
 * Returns null for any other form, which the general path reads.
 */
function parseUtcTimestamp(text: string): string | null {
  const length = text.length;
  // "YYYY-MM-DD HH:MM:SS+00" is 22 characters; a fraction adds "." and 1 to 6 digits.
  if (length < 22 || length > 29 || length === 23 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32) return null;
  if (text.charCodeAt(length - 3) !== 43 || text.charCodeAt(length - 2) !== 48 || text.charCodeAt(length - 1) !== 48) return null;
  const date = text.slice(0, 10);
  const time = text.slice(11, 19);
  if (length === 22) return `${date}T${time}.000Z`;
  if (text.charCodeAt(19) !== 46) return null;
  const fraction = text.slice(20, length - 3);
  const milliseconds = fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, "0");
  return `${date}T${time}.${milliseconds}Z`;
}

/**
 * `bigint` as a JS number: counts and sizes, far below 2^53. (pg's default
 * returns a string, which would make `count(*)` differ from SQLite.)
 */
function parseInt8(text: string): number {
  return Number(text);
}

/** JSON stays text: repositories `JSON.parse` it, as they do on SQLite. */
function keepText(text: string): string {
  return text;
}

const TEXT_PARSERS = new Map<number, (text: string) => unknown>([
  [OID.int8, parseInt8],
  [OID.json, keepText],
  [OID.jsonb, keepText],
  // A date stays "YYYY-MM-DD"; pg's default makes a Date at local midnight, which shifts with the process's zone.
  [OID.date, keepText],
  [OID.timestamp, parseTimestamp],
  [OID.timestamptz, parseTimestamp],
]);

function getTypeParser(oid: number, format: "text" | "binary" = "text"): (value: never) => unknown {
  const own = format === "text" ? TEXT_PARSERS.get(oid) : undefined;
  return own ?? pg.types.getTypeParser(oid, format);
}

/**
 * The type parsers the adapter's pools use, so rows read the same as on
 * SQLite (see `core/src/storage/schema.ts`). They are set per pool rather
 * than on pg's global `types`, so other users of `pg` in the same process keep
 * pg's defaults. Other types keep pg's default parsers.
 */
export const postgresTypes: pg.CustomTypesConfig = {
  getTypeParser: getTypeParser as pg.CustomTypesConfig["getTypeParser"],
};
