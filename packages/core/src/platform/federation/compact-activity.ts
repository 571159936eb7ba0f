import type { DocumentLoader } from "@fedify/fedify";
import type { Activity } from "@fedify/fedify/vocab";
import { CompactContext, type TermMeaning } from "./compact-context.js";
import { countOf, instantOf, iriOf, languageStringsOf } from "./compact-values.js";
import { ACTIVITY_TYPES, coercionOf, IGNORED_PROPERTIES, TYPES, type ValueShape } from "./compact-vocabulary.js";

/** What Fedify's parse keeps on the objects it makes; given to the constructors the same way. */
export interface CompactReadOptions {
  readonly documentLoader?: DocumentLoader;
  readonly contextLoader?: DocumentLoader;
  readonly tracerProvider?: unknown;
}

/** Keys that make a document refused whatever its context says: JSON-LD signatures and integrity proofs. */
const SIGNATURE_KEYS = new Set(["signature", "proof"]);

/**
 * The activity of a compact JSON-LD document, built with the vocabulary's
 * constructors and no JSON-LD processing, or null when the reader cannot be
 * sure the result is what `Activity.fromJsonLd(json)` gives: an unknown
 * context or term, a property or value shape it does not handle, a relative
 * or blank-node id, a signature. The caller then parses with Fedify.
 *
 * Like Fedify's parse, the activity keeps a copy of the document (what
 * `toJsonLd()` returns) and the loaders it was given; a caller that made the
 * document for this read alone and will not change it (`owned`) lets the
 * activity keep it as it is, without the copy. Embedded objects are only
 * accepted from the activity's own origin: the constructors mark them
 * trusted, where Fedify's parse would fetch a foreign one again.
 */
export function readCompactActivity(json: unknown, options: CompactReadOptions = {}, owned = false): Activity | null {
  if (!isRecord(json)) return null;
  const context = CompactContext.of(json["@context"]);
  if (context === null) return null;
  const id = typeof json.id === "string" ? iriOf(json.id) : null;
  if (id === null) return null;
  const reader = new NodeReader(context, { ...options, baseUrl: id });
  let activity: object | null;
  try {
    activity = reader.node(json, ACTIVITY_TYPES, null, true);
  } catch {
    // A value a constructor refuses: Fedify's parse says what becomes of the document.
    return null;
  }
  if (activity === null) return null;
  (activity as { _cachedJsonLd?: unknown })._cachedJsonLd = owned ? json : structuredClone(json);
  return activity as Activity;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** One value of a property as written, with the meaning of the key it came under (`content` and `contentMap` share an IRI). */
type Written = { readonly item: unknown; readonly meaning: TermMeaning } | { readonly list: unknown; readonly meaning: TermMeaning };

/** How deep objects may nest (an activity, its Note, an attachment, its icon ...); deeper documents are Fedify's to parse. */
const MAX_NODE_DEPTH = 16;

class NodeReader {
  readonly #context: CompactContext;
  readonly #options: Record<string, unknown>;
  #depth = 0;

  constructor(context: CompactContext, options: Record<string, unknown>) {
    this.#context = context;
    this.#options = options;
  }

  /**
   * One node: its type among `allowed`, its id (if any) on `owner`'s origin,
   * each key a term the reader knows. Keys are taken in sorted order, the
   * order JSON-LD expansion appends the values of keys sharing an IRI
   * (`content` before `contentMap`).
   */
  node(
    json: Record<string, unknown>,
    allowed: ReadonlySet<string> | readonly string[],
    owner: URL | null,
    top = false,
    untyped?: string,
  ): object | null {
    if (this.#depth >= MAX_NODE_DEPTH) return null;
    this.#depth++;
    try {
      return this.#node(json, allowed, owner, top, untyped);
    } finally {
      this.#depth--;
    }
  }

  #node(
    json: Record<string, unknown>,
    allowed: ReadonlySet<string> | readonly string[],
    owner: URL | null,
    top: boolean,
    untyped: string | undefined,
  ): object | null {
    let typeIri: string | null = null;
    let id: URL | null = null;
    const gathered = new Map<string, Written[]>();
    const keys = Object.keys(json).sort();
    for (const key of keys) {
      if (key === "@context" && top) continue;
      if (key.startsWith("@") || key.includes(":") || SIGNATURE_KEYS.has(key)) return null;
      const value = json[key];
      const meaning = this.#context.meaning(key);
      if (meaning === null) return null;
      if (meaning === undefined) {
        if (!isPlainValue(value)) return null;
        continue;
      }
      if (meaning.keyword === "@id") {
        id = iriOf(value);
        if (id === null) return null;
      } else if (meaning.keyword === "@type") {
        typeIri = this.#typeIri(value);
        if (typeIri === null) return null;
      } else {
        this.#gather(gathered, meaning, value);
      }
    }
    if (typeIri === null && untyped !== undefined && id === null) typeIri = untyped;
    else if (typeIri === null || !includes(allowed, typeIri)) return null;
    if (!top && id !== null && (owner === null || id.origin !== owner.origin)) return null;
    const spec = TYPES.get(typeIri);
    if (spec === undefined) return null;
    const values: Record<string, unknown> = { id };
    const ranks = new Map<string, number>();
    for (const [iri, written] of gathered) {
      const property = spec.properties.get(iri);
      if (property === undefined) {
        if (IGNORED_PROPERTIES.has(iri) && written.every((value) => isPlainValue("list" in value ? value.list : value.item))) continue;
        return null;
      }
      const read = this.#values(property.shape, written, id);
      if (read === null) return null;
      if (property.functional && read.length > 1) return null;
      if (read.length === 0) continue;
      const rank = property.rank ?? 0;
      const taken = ranks.get(property.field);
      if (taken !== undefined && taken <= rank) continue;
      ranks.set(property.field, rank);
      values[property.field] = property.functional ? read[0] : read;
    }
    try {
      return new spec.type(values, this.#options);
    } catch {
      return null;
    }
  }

  /** A type written as one term; type arrays are refused. */
  #typeIri(value: unknown): string | null {
    if (typeof value !== "string" || value.includes(":")) return null;
    const meaning = this.#context.meaning(value);
    if (meaning == null || meaning.keyword !== undefined || meaning.coercion !== undefined || meaning.container !== undefined) {
      return null;
    }
    return meaning.iri;
  }

  /** Collects a key's values under its IRI; a property's shape is checked against the term's coercion once its type is known. */
  #gather(gathered: Map<string, Written[]>, meaning: TermMeaning, value: unknown): void {
    let written = gathered.get(meaning.iri);
    if (written === undefined) {
      written = [];
      gathered.set(meaning.iri, written);
    }
    if (value === null) return;
    if (meaning.container === "@list") {
      // Lists only occur among ignored properties (focalPoint); a property read from a list is refused.
      written.push({ list: value, meaning });
    } else if (meaning.container === "@language") {
      // JSON-LD reads a language map only from an object; an array under the term is not one.
      written.push({ item: value, meaning });
    } else if (Array.isArray(value)) {
      for (const item of value) if (item !== null) written.push({ item, meaning });
    } else {
      written.push({ item: value, meaning });
    }
  }

  #values(shape: ValueShape, written: readonly Written[], owner: URL | null): unknown[] | null {
    const coercion = coercionOf(shape);
    const read: unknown[] = [];
    for (const entry of written) {
      if ("list" in entry) return null;
      const { item, meaning } = entry;
      // An embedded object is a node whatever the term's coercion; strings and numbers depend on it.
      if (meaning.coercion !== coercion && !(shape.kind === "node" && isRecord(item) && meaning.coercion === undefined)) return null;
      if (meaning.container === "@language") {
        if (shape.kind !== "text") return null;
        const strings = languageStringsOf(item);
        if (strings === null) return null;
        read.push(...strings);
        continue;
      }
      const value = this.#value(shape, item, owner);
      if (value === null) return null;
      read.push(value);
    }
    return read;
  }

  #iri(value: string): URL | null {
    const iri = this.#context.valueIri(value);
    return iri === null ? null : iriOf(iri);
  }

  #value(shape: ValueShape, item: unknown, owner: URL | null): unknown {
    switch (shape.kind) {
      case "iri":
        return typeof item === "string" ? this.#iri(item) : null;
      case "node":
        if (typeof item === "string") return shape.untyped === undefined ? this.#iri(item) : null;
        return isRecord(item) ? this.node(item, shape.types, owner, false, shape.untyped) : null;
      case "text":
      case "string":
        return typeof item === "string" ? item : null;
      case "instant":
        return instantOf(item);
      case "boolean":
        return typeof item === "boolean" ? item : null;
      case "count":
        return countOf(item);
      case "url":
        return iriOf(item);
    }
  }
}

function includes(allowed: ReadonlySet<string> | readonly string[], iri: string): boolean {
  return allowed instanceof Set ? allowed.has(iri) : (allowed as readonly string[]).includes(iri);
}

/** Values JSON-LD expands without failing whatever the term: strings, numbers, booleans, null, and flat arrays of them. */
function isPlainValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((item) => item === null || typeof item !== "object");
  return value === null || typeof value !== "object";
}
