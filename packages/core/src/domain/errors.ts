import { type ErrorCode, type ModuleErrorCode, errorEntryOf } from "./error-catalog.js";

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
  readonly code: ErrorCode | ModuleErrorCode;
  readonly details: readonly ErrorDetail[] | undefined;
  /** Seconds a client should wait (rate limits). */
  readonly retryAfterSeconds: number | undefined;
  /**
   * Fields of the body beside `error`, `code` and `details`, for the few refusals where Mastodon's clients read one
   * of their own (`unexpected_accounts`); they never replace those three.
   */
  readonly fields: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: ErrorCode | ModuleErrorCode,
    options: {
      message?: string;
      details?: readonly ErrorDetail[];
      retryAfterSeconds?: number;
      fields?: Readonly<Record<string, unknown>>;
      cause?: unknown;
    } = {},
  ) {
    super(options.message ?? (errorEntryOf(code)?.message ?? code), { cause: options.cause });
    this.name = "KithError";
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.fields = options.fields;
  }
}

/** True when `value` is a Kith error, judged by its code: `instanceof` fails across duplicate module copies. */
export function isKithError(value: unknown): value is KithError {
  if (typeof value !== "object" || value === null) return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === "string" && errorEntryOf(code) !== undefined;
}

export function statusOf(code: ErrorCode | ModuleErrorCode): number {
  return errorEntryOf(code)?.status ?? 500;
}
