import { Agent as HttpAgent, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { OutgoingFetchError, type SafeFetchOptions, addressRefusal, guardedLookup, hostnameOf, systemLookup } from "./safe-fetch.js";

export type InboxSenderOptions = Pick<SafeFetchOptions, "allowPrivateAddress" | "trustedAddresses" | "lookup"> & {
  /** Time without progress (connecting, sending, waiting for the answer) after which a POST fails. @default 10_000 */
  readonly timeoutMs?: number;
  /** Connections kept open to one origin at most. @default 8 */
  readonly connectionsPerOrigin?: number;
};

/** An idle connection is closed after this long, before the usual keep-alive timeouts of servers (5 s in Node's) close it under a request. */
const IDLE_CONNECTION_MS = 4_000;

/** Codes of a connection the server had closed while it waited idle in the pool: the POST never reached it. */
const STALE_CONNECTION_CODES = new Set(["ECONNRESET", "EPIPE"]);

/**
 * POSTs of activities to inboxes over pooled keep-alive connections
 * (node:http, one pool per scheme, a few connections per origin), so the
 * deliveries of a batch to one server, and of the next post, reuse its
 * connection. The safe fetch's address rule holds for every connection: a
 * name is resolved once and refused when it has a non-public address (unless
 * allowed), and the connection goes to the address checked. Redirects are not
 * followed: the answer is returned as it is.
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
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new OutgoingFetchError("bad_url", `Unsupported scheme: ${url.protocol}`);
    const host = hostnameOf(url);
    if (isIP(host) && this.#refuse(host)) throw new OutgoingFetchError("private_address", `${host} is not a public address`);
    const outgoing: OutgoingHttpHeaders = { ...headers, "content-length": body.byteLength };
    try {
      return await this.#exchange(url, outgoing, body);
    } catch (error) {
      if (!(error instanceof StaleConnectionError)) throw error;
      // A pooled connection the server had just closed: the POST did not reach it, so it is sent once more on a new one.
      return this.#exchange(url, outgoing, body);
    }
  }

  /** Closes the pooled connections. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  #exchange(url: URL, headers: OutgoingHttpHeaders, body: Uint8Array): Promise<number> {
    const secure = url.protocol === "https:";
    return new Promise<number>((resolve, reject) => {
      const request = (secure ? httpsRequest : httpRequest)(url, {
        method: "POST",
        headers,
        agent: secure ? this.#https : this.#http,
        lookup: this.#lookup,
        timeout: this.#timeoutMs,
      });
      request.on("timeout", () => request.destroy(new OutgoingFetchError("timeout", `${url.origin} did not answer in time`)));
      request.on("error", (error: NodeJS.ErrnoException) => {
        const stale = request.reusedSocket && error.code !== undefined && STALE_CONNECTION_CODES.has(error.code);
        reject(stale ? new StaleConnectionError(error) : error);
      });
      request.on("response", (response: IncomingMessage) => {
        // The answer's body is not needed; reading it to its end frees the connection for the next POST.
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 502));
        response.on("error", reject);
      });
      request.end(body);
    });
  }
}

class StaleConnectionError extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = "StaleConnectionError";
  }
}
