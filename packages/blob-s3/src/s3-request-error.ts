import { xmlElementText } from "./s3-xml.js";

/** A request the object store refused or failed, with what it said. */
export class S3RequestError extends Error {
  constructor(
    /** What was attempted, such as `PUT media/a.png`. */
    readonly operation: string,
    /** The HTTP status, or 0 when no response arrived. */
    readonly status: number,
    /** S3's error code (`NoSuchBucket`, `SignatureDoesNotMatch`, ...), or null when the body had none. */
    readonly code: string | null,
    message: string,
    /** The store's request id, for its operators. */
    readonly requestId: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(
      `S3 ${operation} failed: ${status === 0 ? "" : `${status} `}${code ?? ""}${code && message ? ": " : ""}${message}`.trim(),
      options,
    );
    this.name = "S3RequestError";
  }

  /** Builds the error from a response, reading S3's XML error document when there is one. */
  static fromResponse(operation: string, status: number, body: string, requestId: string | null): S3RequestError {
    const code = xmlElementText(body, "Code");
    const message = xmlElementText(body, "Message") ?? (code === null ? body.slice(0, 200) : "");
    return new S3RequestError(operation, status, code, message, requestId ?? xmlElementText(body, "RequestId"));
  }
}
