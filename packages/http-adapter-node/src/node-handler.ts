import type { IncomingMessage, ServerResponse } from "node:http";
import type { BodyLimits } from "./body-limits.js";
import { compressResponse } from "./compress-response.js";
import { badRequestResponse, internalErrorResponse, methodNotAllowedResponse } from "./error-responses.js";
import { type RequestFromNode, UnacceptableRequestError, requestFromNode } from "./request-from-node.js";
import { compileTrustedProxies } from "./trusted-proxies.js";
import { writeResponse } from "./write-response.js";

/** What the adapter knows about a request that a Request does not carry. */
export interface NodeRequestInfo {
  /** The client's address after trusted proxies; null if unknown. */
  readonly clientIp: string | null;
}

export type NodeFetchHandler = (request: Request, info: NodeRequestInfo) => Promise<Response>;

/** Where an unexpected failure happened; deliberately without headers or query (tokens live there). */
export interface NodeServerErrorContext {
  readonly method: string;
  readonly path: string;
}

export interface NodeHandlerOptions {
  /** @default { json: 1_000_000, other: 100 * 1024 * 1024 } */
  readonly bodyLimits?: BodyLimits;
  /** Proxies whose X-Forwarded-* headers are believed (see NodeServerOptions). An unreadable entry throws at once. @default [] */
  readonly trustedProxies?: readonly string[];
  /** Told about a handler that threw or a response body that failed mid-way. @default one line on stderr */
  readonly onError?: (error: unknown, context: NodeServerErrorContext) => void;
  /** Compress answers for clients that accept gzip or brotli (compress-response.ts). @default true */
  readonly compression?: boolean;
  /** Whether the server is shutting down: then no connection is kept for another request. @default never */
  readonly isClosing?: () => boolean;
}

/** A `request` listener for node:http: it never throws nor rejects, whatever the request or the handler do. */
export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const INTERNAL_ERROR_BODY = '{"error":"Something went wrong on our side","code":"server.internal"}';

export function defaultOnError(error: unknown, context: NodeServerErrorContext): void {
  const detail = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  console.error(`kith http: ${context.method} ${context.path} failed: ${detail}`);
}

export function pathOnly(target: string | undefined): string {
  const path = target ?? "/";
  const query = path.indexOf("?");
  return query === -1 ? path : path.slice(0, query);
}

/**
 * Turns a fetch handler into a node:http `request` listener that is safe by construction: a request no web Request
 * can represent (`Host: bad host!`, a bad target, TRACE) is answered 400 or 405, a handler that throws 500 with
 * nothing of the error, a body that fails mid-way is cut; nothing reaches the process as an unhandled rejection.
 * An application with its own node:http server hands requests to Kith through this.
 */
export function toNodeHandler(handler: NodeFetchHandler, options: NodeHandlerOptions = {}): NodeRequestListener {
  const { bodyLimits } = options;
  const trustedProxies = options.trustedProxies ?? [];
  // Fail when built, not on the first request, on an unreadable proxy entry.
  compileTrustedProxies(trustedProxies);
  const onError = options.onError ?? defaultOnError;
  const compression = options.compression ?? true;

  async function respond(req: IncomingMessage, signal: AbortSignal, context: NodeServerErrorContext): Promise<Response> {
    let converted: RequestFromNode;
    try {
      converted = requestFromNode(req, { trustedProxies, bodyLimits, signal });
    } catch (error) {
      if (error instanceof UnacceptableRequestError) {
        return error.status === 405 ? methodNotAllowedResponse() : badRequestResponse(error.message);
      }
      onError(error, context);
      return internalErrorResponse();
    }
    try {
      return await handler(converted.request, { clientIp: converted.clientIp });
    } catch (error) {
      // The body says nothing of the error: messages and stacks can carry paths, queries, secrets.
      onError(error, context);
      return internalErrorResponse();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const context: NodeServerErrorContext = { method: req.method ?? "GET", path: pathOnly(req.url) };
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    let response = await respond(req, controller.signal, context);
    if (compression) {
      try {
        response = await compressResponse(response, req);
      } catch (error) {
        // The handler's body failed while it was read to be compressed.
        onError(error, context);
        response = internalErrorResponse();
      }
    }
    // Once shutting down, no connection is kept for another request.
    if (options.isClosing?.()) res.setHeader("connection", "close");
    try {
      await writeResponse(response, res);
    } catch (error) {
      onError(error, context);
    }
  }

  return (req, res) =>
    handle(req, res).catch((error: unknown) => {
      // Only a bug in the adapter itself (or in onError) gets here.
      if (!res.headersSent && !res.destroyed)
        res.writeHead(500, { "content-type": "application/json; charset=utf-8" }).end(INTERNAL_ERROR_BODY);
      else res.destroy();
      console.error("kith http: unexpected adapter failure:", error);
    });
}
