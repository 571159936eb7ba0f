import { type JsonPieces, utf8Of } from "./json-text.js";

/**
 * A Response whose body is already in memory: a rendered JSON page, a small
 * text. Building a web Response around such a body builds a byte stream for
 * it, and a host reads that stream back; for a page of 40 statuses the two cost
 * about as much as serializing the page (bench/READING.md, "Measurements
 * behind the code"). So the stream is built only if someone asks for it.
 *
 * To everyone else it is an ordinary Response: `body`, `bodyUsed`, `text()`,
 * `json()`, `arrayBuffer()`, `bytes()`, `blob()`, `formData()` and `clone()`
 * behave as those of `new Response(content, init)`, which is built on the
 * first use of any of them. A host that knows the symbol below (the node
 * adapter, packages/http-adapter-node) takes the content from it instead and
 * writes it as it is. `Symbol.for` so host and core agree even when loaded as
 * separate copies; the value is a string, bytes, or pieces (strings and bytes
 * whose UTF-8, in order, is the body: see json-text.ts) while the body has not
 * been read another way, else absent. A host that does not know pieces reads
 * the body as of any Response.
 */
export const BUFFERED_BODY: unique symbol = Symbol.for("kith.response.bufferedBody") as never;

/** Statuses whose responses have no body: a body with them is refused by Response itself. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A Response for `content` in memory; an ordinary one for the statuses that take no body (which then refuses it). */
export function bufferedResponse(content: BufferedContent, init: ResponseInit = {}): Response {
  if (NULL_BODY_STATUSES.has(init.status ?? 200)) return new Response(bodyOf(content), init);
  return new BufferedResponse(content, init);
}

/** A body in memory: a string, bytes, or pieces of JSON text (json-text.ts). */
export type BufferedContent = string | Uint8Array | JsonPieces;

/** The content as a Response takes a body. */
function bodyOf(content: BufferedContent): BodyInit {
  return typeof content === "string" || content instanceof Uint8Array ? (content as BodyInit) : (utf8Of(content) as BodyInit);
}

class BufferedResponse extends Response {
  readonly #content: BufferedContent;
  #built: Response | null = null;

  constructor(content: BufferedContent, init: ResponseInit) {
    super(null, init);
    this.#content = content;
    // A string body gets the content type Response gives one, unless the caller named its own.
    if (typeof content === "string" && !this.headers.has("content-type")) this.headers.set("content-type", "text/plain;charset=UTF-8");
  }

  get [BUFFERED_BODY](): BufferedContent | undefined {
    return this.#built === null ? this.#content : undefined;
  }

  /** The Response this one stands for, built the first time its body is used. */
  #response(): Response {
    this.#built ??= new Response(bodyOf(this.#content), { status: this.status, statusText: this.statusText, headers: this.headers });
    return this.#built;
  }

  override text(): Promise<string> {
    return this.#response().text();
  }

  override json(): Promise<unknown> {
    return this.#response().json();
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#response().arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#response().bytes();
  }

  override blob(): Promise<Blob> {
    return this.#response().blob();
  }

  override formData(): Promise<FormData> {
    return this.#response().formData();
  }

  override clone(): Response {
    if (this.#built !== null) return this.#built.clone();
    return new BufferedResponse(this.#content, {
      status: this.status,
      statusText: this.statusText,
      headers: new Headers(this.headers),
    });
  }

  static {
    // Accessors over Response's own: TypeScript declares `body` and `bodyUsed` as properties, so they are defined here.
    Object.defineProperties(BufferedResponse.prototype, {
      body: {
        get(this: BufferedResponse) {
          return this.#response().body;
        },
        configurable: true,
      },
      bodyUsed: {
        get(this: BufferedResponse) {
          return this.#built?.bodyUsed ?? false;
        },
        configurable: true,
      },
    });
  }
}
