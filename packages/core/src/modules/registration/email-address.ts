import { domainToASCII } from "node:url";

/**
 * Email addresses as Kith accepts them for registration. Only the plain
 * `dot-atom@domain` form of RFC 5322 is accepted, because every other form is
 * one that mail servers, filters and our own lookups may read differently
 * (so that one mailbox could hold several accounts, or an allowlist could be
 * walked around):
 *
 * - quoted local parts (`"a@b"@example.com`) and comments (`a(x)@example.com`);
 * - consecutive, leading or trailing dots in the local part or the domain;
 * - IP-literal domains (`a@[127.0.0.1]`) and bare IP addresses as domains;
 * - non-ASCII local parts (SMTPUTF8 is not supported by the mail port);
 * - whitespace, control characters, more than one `@`.
 *
 * Internationalised domain names are accepted and stored as punycode, the
 * one form DNS and mail servers agree on. The whole address is lower-cased:
 * local parts are case-sensitive in theory, never in practice, and sign-in
 * looks addresses up lower-cased, so `Alice@x` and `alice@x` are one mailbox.
 */

export type EmailProblem = "blank" | "invalid" | "too_long";

export type EmailCheck =
  | { readonly ok: true; readonly address: string; readonly local: string; readonly domain: string }
  | { readonly ok: false; readonly problem: EmailProblem };

/** RFC 5321 §4.5.3.1: 64 octets of local part, 254 of path (less the angle brackets). */
export const MAX_LOCAL_PART_LENGTH = 64;
export const MAX_EMAIL_LENGTH = 254;

const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~-";
const DOT_ATOM = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`);
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A domain normalised to lower-case ASCII, or null when it is not a domain
 * name that mail could be delivered to by name: IP literals, bare IPv4
 * addresses, empty labels (consecutive, leading or trailing dots), a single
 * label, an all-numeric top-level label.
 */
export function normalizeDomain(raw: string): string | null {
  const trimmed = raw.trim();
  if (trimmed === "" || trimmed.startsWith("[") || trimmed.includes("..") || trimmed.startsWith(".") || trimmed.endsWith(".")) return null;
  // domainToASCII lower-cases and punycodes; it answers "" for what it cannot convert.
  const ascii = /^[\x21-\x7e]+$/.test(trimmed) ? trimmed.toLowerCase() : domainToASCII(trimmed);
  if (ascii === "" || ascii.length > 253) return null;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return null;
  const tld = labels[labels.length - 1] ?? "";
  if (/^[0-9]+$/.test(tld)) return null;
  return ascii;
}

/** Checks and normalises an address for registration; see the module comment for what is refused. */
export function checkEmailAddress(raw: string | undefined | null): EmailCheck {
  const trimmed = (raw ?? "").trim();
  if (trimmed === "") return { ok: false, problem: "blank" };
  if (trimmed.length > MAX_EMAIL_LENGTH) return { ok: false, problem: "too_long" };
  const at = trimmed.indexOf("@");
  if (at <= 0 || at !== trimmed.lastIndexOf("@")) return { ok: false, problem: "invalid" };
  const local = trimmed.slice(0, at);
  if (local.length > MAX_LOCAL_PART_LENGTH || !DOT_ATOM.test(local)) return { ok: false, problem: "invalid" };
  const domain = normalizeDomain(trimmed.slice(at + 1));
  if (domain === null) return { ok: false, problem: "invalid" };
  const address = `${local.toLowerCase()}@${domain}`;
  if (address.length > MAX_EMAIL_LENGTH) return { ok: false, problem: "too_long" };
  return { ok: true, address, local: local.toLowerCase(), domain };
}

/** The domain and each of its parent domains, most specific first: `a.b.c` -> `a.b.c`, `b.c`, `c`. */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split(".");
  return labels.map((_, index) => labels.slice(index).join("."));
}
