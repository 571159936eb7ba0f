/**
 * Blob keys are chosen by the server, never taken from a client, but adapters
 * still check them: a local-directory store turns keys into paths, so a key
 * that could climb out of its directory must be refused everywhere, and every
 * adapter refuses the same keys so a key that works in tests works in production.
 */

/**
 * One path segment: the safe charset only, and no leading dot, which rules out
 * `.` and `..` and leaves dot-names free for an adapter's own bookkeeping.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Long enough for any name the server makes; bounded so a key stays a valid path on common filesystems. */
const MAX_KEY_LENGTH = 512;

export class InvalidBlobKeyError extends Error {
  constructor(key: string, reason: string) {
    // JSON.stringify so NULs and backslashes show up readably in logs.
    super(`invalid blob key ${JSON.stringify(key)}: ${reason}`);
    this.name = "InvalidBlobKeyError";
  }
}

/** The reason `key` is not a valid blob key, or null when it is. */
export function blobKeyProblem(key: string): string | null {
  if (typeof key !== "string" || key.length === 0) return "empty";
  if (key.length > MAX_KEY_LENGTH) return `longer than ${MAX_KEY_LENGTH} characters`;
  if (key.startsWith("/")) return "absolute";
  for (const segment of key.split("/")) {
    if (segment.length === 0) return "empty path segment";
    if (!SEGMENT.test(segment)) return "segments must use [A-Za-z0-9._-] and not start with a dot";
  }
  return null;
}

/** Throws InvalidBlobKeyError unless `key` is segments of `[A-Za-z0-9._-]` joined by `/`, with no `..`, dot-names or leading `/`. */
export function assertValidBlobKey(key: string): void {
  const problem = blobKeyProblem(key);
  if (problem !== null) throw new InvalidBlobKeyError(key, problem);
}
