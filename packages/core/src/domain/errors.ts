import { type ErrorCode, errorCatalog } from "./error-catalog.js";

/** One item of `details`: a field (dot path) and what is wrong with it. */
export interface ErrorDetail {
  readonly field?: string;
  readonly message: string;
  readonly code?: string;
}

/**
 * A domain error. Carries a code from the catalog; its HTTP status is derived
 * from the code, never chosen where it is thrown.
 */
export class KithError extends Error {
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[] | undefined;
  /** Seconds a client should wait (rate limits). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    options: { message?: string; details?: readonly ErrorDetail[]; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(options.message ?? errorCatalog[code].message, { cause: options.cause });
    this.name = "KithError";
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** True when `value` is a Kith error, judged by its code: `instanceof` fails across duplicate module copies. */
export function isKithError(value: unknown): value is KithError {
  if (typeof value !== "object" || value === null) return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === "string" && Object.hasOwn(errorCatalog, code);
}

export function statusOf(code: ErrorCode): number {
  return errorCatalog[code].status;
}
