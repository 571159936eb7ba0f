import { Document } from "@fedify/fedify/vocab";
import { KITH_TERMS, TOOT } from "../federation/peer-json-ld.js";

type DocumentValues = ConstructorParameters<typeof Document>[0];
type DocumentOptions = ConstructorParameters<typeof Document>[1];
type JsonLdOptions = NonNullable<Parameters<Document["toJsonLd"]>[0]>;

/** What Mastodon adds to an attachment and Fedify's vocabulary has no property for. */
export interface MediaExtras {
  /** The BlurHash of the image or preview, drawn while it loads. */
  readonly blurhash?: string | null;
  /** The point to keep in view when the image is cropped, each coordinate from -1 to 1. */
  readonly focalPoint?: readonly [number, number] | null;
}

/**
 * A status's attachment as a `Document` with Mastodon's `blurhash` and
 * `focalPoint`, written in whichever form the document is asked for: as
 * expanded terms when it is nested in an object being compacted, under its
 * short names otherwise.
 */
export class MediaDocument extends Document {
  #extras: MediaExtras;

  constructor(values: DocumentValues & MediaExtras, options?: DocumentOptions) {
    const { blurhash, focalPoint, ...rest } = values;
    super(rest, options);
    this.#extras = { blurhash: blurhash ?? null, focalPoint: focalPoint ?? null };
  }

  override clone(values: DocumentValues = {}, options?: DocumentOptions): MediaDocument {
    // Fedify clones through the constructor with the id only and copies its own fields: the extras are copied here.
    const copy = super.clone(values, options) as MediaDocument;
    copy.#extras = this.#extras;
    return copy;
  }

  get blurhash(): string | null {
    return this.#extras.blurhash ?? null;
  }

  get focalPoint(): readonly [number, number] | null {
    return this.#extras.focalPoint ?? null;
  }

  override async toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    const json = await super.toJsonLd(options);
    const { blurhash, focalPoint } = this.#extras;
    if (!blurhash && !focalPoint) return json;
    if (options.format === "expand") {
      const node = Array.isArray(json) ? (json[0] as Record<string, unknown> | undefined) : undefined;
      if (node) {
        if (blurhash) node[`${TOOT}blurhash`] = [{ "@value": blurhash }];
        if (focalPoint) node[`${TOOT}focalPoint`] = [{ "@list": focalPoint.map((value) => ({ "@value": value })) }];
      }
      return json;
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) return json;
    const node = { ...(json as Record<string, unknown>) };
    if (blurhash) node.blurhash = blurhash;
    if (focalPoint) node.focalPoint = [...focalPoint];
    // Compacted on its own, the document carries its context: the two names must be defined there too.
    const context = node["@context"];
    if (context !== undefined) node["@context"] = [...(Array.isArray(context) ? context : [context]), KITH_TERMS];
    return node;
  }
}
