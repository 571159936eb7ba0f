import { createPublicKey } from "node:crypto";

/**
 * Key material of fetched documents that cannot be read is taken out before
 * Fedify reads them.
 *
 * Why: Fedify decodes a key's `publicKeyPem` while it reads the document,
 * and a PEM that is no key (garbage between the armour lines) throws an
 * error it does not expect there (an ASN.1 parse error), so an inbox POST
 * signed with such a key was answered 500, and the key fetched again for
 * every request. Without the PEM, Fedify finds the key has none: the
 * signature does not verify (401), and Fedify remembers the key as
 * unavailable for a while (its key cache keeps that for ten minutes).
 */

function importable(pem: string): boolean {
  try {
    createPublicKey(pem);
    return true;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is a key object (not a reference) whose PEM does not import. */
function isUnusableKey(value: unknown): boolean {
  return isRecord(value) && typeof value.publicKeyPem === "string" && !importable(value.publicKeyPem);
}

/**
 * `document` without the PEMs that do not import: a key document's own, and
 * those of the keys an actor embeds in `publicKey`. The same object when
 * there is none (the usual case).
 */
export function withoutUnusableKeys(document: unknown): unknown {
  if (!isRecord(document)) return document;
  let result = document;
  if (isUnusableKey(document)) {
    const { publicKeyPem: _unusable, ...rest } = document;
    result = rest;
  }
  const keys = document.publicKey;
  if (Array.isArray(keys) ? keys.some(isUnusableKey) : isUnusableKey(keys)) {
    const kept = Array.isArray(keys) ? keys.filter((key) => !isUnusableKey(key)) : [];
    const { publicKey: _all, ...rest } = result;
    result = kept.length > 0 ? { ...rest, publicKey: kept } : rest;
  }
  return result;
}
