/** Caps on request bodies, by kind. The core re-checks its own (often smaller) per-route limit. */
export interface BodyLimits {
  /**
   * JSON (including `+json` types such as ActivityPub's), form-encoded and bodies without Content-Type.
   * @default 1_000_000
   */
  readonly json?: number;
  /**
   * Every other content type (multipart, binary uploads).
   * @default 100 * 1024 * 1024
   */
  readonly other?: number;
}

export const DEFAULT_JSON_BODY_LIMIT = 1_000_000;
export const DEFAULT_OTHER_BODY_LIMIT = 100 * 1024 * 1024;

/** The error code the core maps to 413; the core's body parser rethrows transport errors that carry it. */
export const BODY_TOO_LARGE_CODE = "request.body_too_large";

/** An Error carrying the core's error code, so the core answers 413 in its own error format. */
export class BodyTooLargeError extends Error {
  readonly code = BODY_TOO_LARGE_CODE;
  readonly limit: number;

  constructor(limit: number) {
    super(`The request body exceeds ${limit} bytes`);
    this.name = "BodyTooLargeError";
    this.limit = limit;
  }
}

function isJsonLike(mediaType: string): boolean {
  return (
    mediaType === "" || mediaType === "application/json" || mediaType.endsWith("+json") || mediaType === "application/x-www-form-urlencoded"
  );
}

/** The cap for a request with this Content-Type header. */
export function bodyLimitFor(contentType: string | undefined, limits: BodyLimits = {}): number {
  const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return isJsonLike(mediaType) ? (limits.json ?? DEFAULT_JSON_BODY_LIMIT) : (limits.other ?? DEFAULT_OTHER_BODY_LIMIT);
}
