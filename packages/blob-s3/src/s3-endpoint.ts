import { encodeS3Path } from "./sigv4.js";

/** Where a bucket's objects live, in one of S3's two addressing styles. */
export interface S3Endpoint {
  /** `https://s3.eu-west-1.amazonaws.com`, `http://127.0.0.1:9000`; may carry a base path behind a proxy. */
  readonly url: string;
  readonly bucket: string;
  /**
   * Path style (`https://host/bucket/key`) instead of virtual-hosted style
   * (`https://bucket.host/key`). Most self-hosted stores (MinIO, Garage,
   * SeaweedFS) want path style; AWS wants virtual-hosted style.
   */
  readonly forcePathStyle: boolean;
}

export interface ObjectLocation {
  /** `scheme://host[:port]` to send the request to. */
  readonly origin: string;
  /** The Host header, with the port when it is not the scheme's default. */
  readonly host: string;
  /** The encoded path, as sent and as signed. */
  readonly path: string;
}

/** Names S3 accepts for buckets in either style: 3 to 63 of `a-z 0-9 . -`, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Resolves object keys (already validated) to URLs, for one endpoint and bucket. */
export class S3Addressing {
  readonly #protocol: string;
  readonly #host: string;
  readonly #basePath: string;
  readonly #bucket: string;
  readonly #pathStyle: boolean;

  constructor(endpoint: S3Endpoint) {
    let url: URL;
    try {
      url = new URL(endpoint.url);
    } catch {
      throw new TypeError(`S3 endpoint ${JSON.stringify(endpoint.url)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("S3 endpoint must be an http(s) URL");
    if (url.search || url.hash || url.username || url.password) {
      throw new TypeError("S3 endpoint must not carry a query, fragment or credentials");
    }
    if (!BUCKET_NAME.test(endpoint.bucket)) throw new TypeError(`S3 bucket name ${JSON.stringify(endpoint.bucket)} is not valid`);
    this.#protocol = url.protocol;
    this.#host = url.host;
    this.#basePath = url.pathname.replace(/\/+$/, "");
    this.#bucket = endpoint.bucket;
    this.#pathStyle = endpoint.forcePathStyle;
  }

  /** The object at `key`, or the bucket itself when `key` is null. */
  locate(key: string | null): ObjectLocation {
    const objectPath = key === null ? "" : encodeS3Path(key);
    if (this.#pathStyle) {
      const path = `${this.#basePath}/${this.#bucket}${key === null ? "" : `/${objectPath}`}`;
      return { origin: `${this.#protocol}//${this.#host}`, host: this.#host, path };
    }
    const host = `${this.#bucket}.${this.#host}`;
    return { origin: `${this.#protocol}//${host}`, host, path: `${this.#basePath}/${objectPath}` };
  }
}
