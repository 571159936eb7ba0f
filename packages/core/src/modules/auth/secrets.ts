import { createHash, timingSafeEqual } from "node:crypto";
import type { Random } from "../../ports/random.js";

/**
 * Bearer tokens, client secrets and codes. Tokens are URL-safe (base64url:
 * letters, digits, `-`, `_`) because clients pass them as a WebSocket
 * subprotocol, where `=`, `/` and `+` are refused. Only their SHA-256 is
 * stored: a token has 256 bits of entropy, so a fast hash is enough, and a
 * leaked database holds nothing that signs anyone in.
 */
export function newToken(random: Random, bytes = 32): string {
  return Buffer.from(random.bytes(bytes)).toString("base64url");
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Compares two strings in time that does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** A human-typeable numeric code, e.g. for email confirmation. */
export function newNumericCode(random: Random, digits = 6): string {
  const bytes = random.bytes(digits);
  let code = "";
  for (let i = 0; i < digits; i++) code += String((bytes[i] ?? 0) % 10);
  return code;
}

/** A readable random password for accounts created from the command line. */
export function newPassword(random: Random): string {
  return Buffer.from(random.bytes(18)).toString("base64url");
}
