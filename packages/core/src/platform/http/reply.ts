import { bufferedResponse } from "./buffered-response.js";
import { type JsonTexts, jsonBody } from "./json-text.js";

/**
 * What a handler may return besides a plain value (sent as JSON, 200): a
 * Reply with its own status, headers or non-JSON body, or a ready Response.
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
    /** When set, `body` is sent as is with this content type rather than as JSON. */
    readonly contentType?: string,
    /** JSON texts the renderer already has for objects of `body` (see json-text.ts). */
    readonly texts?: JsonTexts,
  ) {}

  static json(body: unknown, init: { status?: number; headers?: Record<string, string>; texts?: JsonTexts } = {}): Reply {
    return new Reply(init.status ?? 200, body, init.headers ?? {}, undefined, init.texts);
  }

  static text(body: string | Uint8Array, contentType: string, init: { status?: number; headers?: Record<string, string> } = {}): Reply {
    return new Reply(init.status ?? 200, body, init.headers ?? {}, contentType);
  }

  static empty(status = 204, headers: Record<string, string> = {}): Reply {
    return new Reply(status, null, headers, "");
  }

  toResponse(): Response {
    if (this.contentType === "") return new Response(null, { status: this.status, headers: this.headers });
    if (this.contentType !== undefined) {
      const init = { status: this.status, headers: { "content-type": this.contentType, ...this.headers } };
      return typeof this.body === "string" || this.body instanceof Uint8Array
        ? bufferedResponse(this.body, init)
        : new Response(this.body as BodyInit, init);
    }
    return bufferedResponse(jsonBody(this.body, this.texts), {
      status: this.status,
      headers: { "content-type": "application/json; charset=utf-8", ...this.headers },
    });
  }
}

export type HandlerResult = Reply | Response | object | string | number | boolean | null;

export function toResponse(result: HandlerResult, defaultStatus = 200): Response {
  if (result instanceof Response) return result;
  if (result instanceof Reply) return result.toResponse();
  return Reply.json(result, { status: defaultStatus }).toResponse();
}
