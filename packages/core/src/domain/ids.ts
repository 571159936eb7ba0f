/**
 * Identifiers are `<prefix>_<time-ordered opaque part>`. The opaque part is a
 * 10-character timestamp (milliseconds) and a 16-character random tail, both in
 * lower-case Crockford base32, so ids of one kind have equal length and sort
 * by creation time as plain strings: cursors can compare them directly.
 */

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_LENGTH = 10;
const RANDOM_LENGTH = 16;

/** Prefixes of every resource kind; two letters each, `us` and `gr` fixed by the spec. */
export const ID_PREFIXES = {
  user: "us",
  group: "gr",
  role: "ro",
  session: "se",
  app: "ap",
  status: "st",
  media: "md",
  notification: "no",
  report: "rp",
  event: "ev",
  job: "jb",
  upload: "up",
  importJob: "im",
  data: "da",
  passkey: "pk",
  secret: "sc",
  domainBlock: "db",
  domainAllow: "dw",
  signup: "sg",
  audit: "au",
  follow: "fo",
  followRequest: "fr",
  block: "bl",
  mute: "mu",
  userDomainBlock: "ud",
  tag: "tg",
  favourite: "fv",
  bookmark: "bm",
  pin: "pn",
  highlight: "hl",
  subscription: "ss",
  poll: "po",
  pollVote: "pv",
  statusEdit: "ed",
  list: "li",
  conversation: "cv",
  accountConversation: "ac",
  filter: "fi",
  filterKeyword: "fk",
  filterStatus: "fs",
  tagFollow: "tf",
  emoji: "em",
  reaction: "er",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

declare const moduleIdKind: unique symbol;
/** A kind of id a feature module declared with `defineIdKinds`; only that function makes one. */
export type ModuleIdKind = string & { readonly [moduleIdKind]: true };

const modulePrefixes = new Map<string, string>();

/**
 * Declares the kinds of id a feature module makes, each with its two-letter
 * prefix (`{ guestbookEntry: "gb" }`). A prefix the core or another module
 * already uses for another kind is refused: an id's prefix names one kind.
 */
export function defineIdKinds<const K extends Record<string, string>>(kinds: K): { readonly [N in keyof K]: ModuleIdKind } {
  const declared: Record<string, ModuleIdKind> = {};
  const corePrefixes = new Set<string>(Object.values(ID_PREFIXES));
  for (const [kind, prefix] of Object.entries(kinds)) {
    if (!/^[a-z]{2}$/.test(prefix)) throw new Error(`Id prefix ${prefix} is not two letters a-z`);
    const known = Object.hasOwn(ID_PREFIXES, kind) ? ID_PREFIXES[kind as IdKind] : modulePrefixes.get(kind);
    const taken = corePrefixes.has(prefix) || [...modulePrefixes].some(([other, used]) => used === prefix && other !== kind);
    if ((known !== undefined && known !== prefix) || (known === undefined && taken)) throw new Error(`Id kind ${kind} (${prefix}) clashes with a declared one`);
    modulePrefixes.set(kind, prefix);
    declared[kind] = kind as ModuleIdKind;
  }
  return declared as { readonly [N in keyof K]: ModuleIdKind };
}

/** The prefix of a core kind or of a module's. */
export function prefixOf(kind: IdKind | ModuleIdKind): string {
  const prefix = Object.hasOwn(ID_PREFIXES, kind) ? ID_PREFIXES[kind as IdKind] : modulePrefixes.get(kind);
  if (prefix === undefined) throw new RangeError(`Unknown id kind ${kind}`);
  return prefix;
}

const ID_PATTERN = new RegExp(`^([a-z]{2})_[${ALPHABET}]{${TIME_LENGTH + RANDOM_LENGTH}}$`);

export function encodeTime(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`Cannot encode time ${ms}`);
  let out = "";
  let rest = ms;
  for (let i = 0; i < TIME_LENGTH; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

export function encodeRandom(bytes: Uint8Array): string {
  if (bytes.length < RANDOM_LENGTH) throw new RangeError("Need 16 random bytes");
  let out = "";
  for (let i = 0; i < RANDOM_LENGTH; i++) out += ALPHABET[(bytes[i] ?? 0) % 32];
  return out;
}

/** Adds one to a base32 string; used to keep ids monotonic within one millisecond. */
export function incrementBase32(value: string): string {
  const chars = value.split("");
  for (let i = chars.length - 1; i >= 0; i--) {
    const index = ALPHABET.indexOf(chars[i] ?? "0");
    if (index < 31) {
      chars[i] = ALPHABET[index + 1] ?? "0";
      return chars.join("");
    }
    chars[i] = "0";
  }
  throw new RangeError("Random part overflowed within one millisecond");
}

export function isId(value: string, kind?: IdKind | ModuleIdKind): boolean {
  const match = ID_PATTERN.exec(value);
  if (!match) return false;
  return kind === undefined || match[1] === prefixOf(kind);
}

/** The smallest id of a kind created at or after `ms`: a cursor for "since this time". */
export function lowestIdAt(kind: IdKind | ModuleIdKind, ms: number): string {
  return `${prefixOf(kind)}_${encodeTime(ms)}${"0".repeat(RANDOM_LENGTH)}`;
}

/** The creation time encoded in an id. */
export function idTime(id: string): number {
  const match = ID_PATTERN.exec(id);
  if (!match) throw new RangeError(`Not an id: ${id}`);
  const time = id.slice(3, 3 + TIME_LENGTH);
  let ms = 0;
  for (const ch of time) ms = ms * 32 + ALPHABET.indexOf(ch);
  return ms;
}
