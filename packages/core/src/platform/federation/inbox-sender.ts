import { Agent as HttpAgent, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import {
  OutgoingFetchError,
  type SafeFetchOptions,
  addressRefusal,
  guardedLookup,
  headersOf,
  hostnameOf,
  systemLookup,
} from "./safe-fetch.js";

export type InboxSenderOptions = Pick<SafeFetchOptions, "allowPrivateAddress" | "trustedAddresses" | "lookup"> & {
  /** Time without progress (connecting, sending, waiting for the answer) after which a POST fails. @default 10_000 */
  readonly timeoutMs?: number;
  /** Connections kept open to one origin at most. @default 8 */
  readonly connectionsPerOrigin?: number;
};

/** An idle connection is closed after this long, before the usual keep-alive timeouts of servers (5 s in Node's) close it under a request. */
const IDLE_CONNECTION_MS = 4_000;

/** The most of an answer's body `send` keeps: what a delivery reads of one is the error text of a refusal. */
const KEPT_BODY_BYTES = 64 * 1024;

/** Codes of a connection the server had closed while it waited idle in the pool: the POST never reached it. */
const STALE_CONNECTION_CODES = new Set(["ECONNRESET", "EPIPE"]);

/**
 * POSTs of activities to inboxes over pooled keep-alive connections
 * (node:http, one pool per scheme, a few connections per origin), so the
 * deliveries of a batch to one server, and of the next status, reuse its
 * connection. The safe fetch's address rule holds for every connection: a
 * name is resolved once and refused when it has a non-public address (unless
 * allowed), and the connection goes to the address checked. Redirects are not
 * followed: `status` returns the answer's status as it is, `send` refuses a
 * redirect.
 */
export class InboxSender {
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;
  readonly #refuse: (address: string) => boolean;
  readonly #lookup: ReturnType<typeof guardedLookup>;
  readonly #timeoutMs: number;

  constructor(options: InboxSenderOptions = {}) {
    const pool = { keepAlive: true, maxSockets: options.connectionsPerOrigin ?? 8, timeout: IDLE_CONNECTION_MS };
    this.#http = new HttpAgent(pool);
    this.#https = new HttpsAgent(pool);
    this.#refuse = addressRefusal(options);
    this.#lookup = guardedLookup(options.lookup ?? systemLookup, this.#refuse);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** POSTs `body` with `headers` (which must carry what was signed); resolves with the answer's status, rejects when none came. */
  async post(url: URL, headers: Readonly<Record<string, string>>, body: Uint8Array): Promise<number> {
    return (await this.#request(url, "POST", headers, body, 0)).status;
  }

  /**
   * Sends `request` as the global fetch would, for Fedify's own deliveries
   * (see delivery-fetch.ts): over the same pooled, address-checked
   * connections, with the start of the answer's body. A redirect is refused
   * (OutgoingFetchError "redirect_refused"): a delivery goes to the inbox it
   * was addressed to, or fails and is retried there.
   */
  async send(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = new Uint8Array(await request.arrayBuffer());
    const answer = await this.#request(url, request.method, headers, body, KEPT_BODY_BYTES, request.signal);
    if (answer.status >= 300 && answer.status < 400 && answer.message.headers.location !== undefined) {
      throw new OutgoingFetchError("redirect_refused", `${url.origin} answered a delivery with a redirect, which deliveries do not follow`);
    }
    const nullBody = answer.status === 204 || answer.status === 304 || answer.status < 200;
    const response = new Response(nullBody ? null : Buffer.from(answer.body), { status: answer.status, headers: headersOf(answer.message) });
    Object.defineProperty(response, "url", { value: url.href });
    return response;
  }

  async #request(
    url: URL,
    method: string,
    headers: Readonly<Record<string, string>>,
    body: Uint8Array,
    keepBytes: number,
    signal?: AbortSignal,
  ): Promise<Answer> {
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new OutgoingFetchError("bad_url", `Unsupported scheme: ${url.protocol}`);
    const host = hostnameOf(url);
    if (isIP(host) && this.#refuse(host)) throw new OutgoingFetchError("private_address", `${host} is not a public address`);
    const outgoing: OutgoingHttpHeaders = { ...headers, "content-length": body.byteLength };
    const exchange = { url, method, headers: outgoing, body, keepBytes, ...(signal && { signal }) };
    try {
      return await this.#exchange(exchange);
    } catch (error) {
      if (!(error instanceof StaleConnectionError)) throw error;
      // A pooled connection the server had just closed: the request did not reach it, so it is sent once more on a new one.
      return this.#exchange(exchange);
    }
  }

  /** Closes the pooled connections. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  #exchange(exchange: Exchange): Promise<Answer> {
    const { url, keepBytes } = exchange;
    const secure = url.protocol === "https:";
    return new Promise<Answer>((resolve, reject) => {
      const request = (secure ? httpsRequest : httpRequest)(url, {
        method: exchange.method,
        headers: exchange.headers,
        agent: secure ? this.#https : this.#http,
        lookup: this.#lookup,
        timeout: this.#timeoutMs,
        ...(exchange.signal && { signal: exchange.signal }),
      });
      request.on("timeout", () => request.destroy(new OutgoingFetchError("timeout", `${url.origin} did not answer in time`)));
      request.on("error", (error: NodeJS.ErrnoException) => {
        const stale = request.reusedSocket && error.code !== undefined && STALE_CONNECTION_CODES.has(error.code);
        reject(stale ? new StaleConnectionError(error) : error);
      });
      request.on("response", (response: IncomingMessage) => {
        // The rest of the body is read and dropped: reading it to its end frees the connection for the next request.
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept >= keepBytes) return;
          const part = chunk.subarray(0, keepBytes - kept);
          chunks.push(part);
          kept += part.length;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 502, message: response, body: new Uint8Array(Buffer.concat(chunks)) }),
        );
        response.on("error", reject);
      });
      request.end(exchange.body);
    });
  }
}

/** One request as the sender makes it. */
interface Exchange {
  readonly url: URL;
  readonly method: string;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Uint8Array;
  /** How much of the answer's body to keep. */
  readonly keepBytes: number;
  readonly signal?: AbortSignal;
}

interface Answer {
  readonly status: number;
  readonly message: IncomingMessage;
  readonly body: Uint8Array;
}

class StaleConnectionError extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = "StaleConnectionError";
  }
}
