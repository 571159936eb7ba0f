import { createHash } from "node:crypto";

/**
 * Mastodon's canonical form of an address, which its canonical email blocks
 * hash: lower-cased, dots of the local part dropped and everything from its
 * first `+` on cut, so `J.Doe+spam@Example.com` and `jdoe@example.com` are one.
 * Mastodon does this for every domain, not only those known to ignore dots.
 */
export function canonicalEmail(address: string): string {
  const lower = address.trim().toLowerCase();
  const at = lower.indexOf("@");
  const local = at === -1 ? lower : lower.slice(0, at);
  const domain = at === -1 ? "" : lower.slice(at + 1);
  const base = local.replaceAll(".", "").split("+", 1)[0] ?? "";
  return `${base}@${domain}`;
}

/** SHA-256, hex, of the canonical form: what a block keeps instead of the address. */
export function canonicalEmailHash(address: string): string {
  return createHash("sha256").update(canonicalEmail(address)).digest("hex");
}
