import { preloadedContexts } from "@fedify/fedify";
import { BoundedMap } from "../../bounded-map.js";

/**
 * The meaning of a term in an activity's `@context`, as far as the compact
 * reader needs it: the IRI it expands to, the type its values are coerced to
 * (`@id`, or an expanded datatype IRI) and its container (`@language` or
 * `@list`). `keyword` is set for the aliases of `@id` and `@type`.
 */
export interface TermMeaning {
  readonly iri: string;
  readonly coercion?: string;
  readonly container?: "@language" | "@list";
  readonly keyword?: "@id" | "@type";
}

/** A term the reader cannot interpret (scoped contexts, reverse properties, null ...): a document using it is refused. */
const UNSUPPORTED = Symbol("unsupported term definition");

type RawDefinition = string | { readonly "@id"?: string; readonly "@type"?: string; readonly "@container"?: string };

interface ContextEntry {
  readonly terms: ReadonlyMap<string, RawDefinition | typeof UNSUPPORTED>;
  readonly protected: boolean;
}

export const ACTIVITYSTREAMS_CONTEXT = "https://www.w3.org/ns/activitystreams";
const DEFINITION_KEYS = new Set(["@id", "@type", "@container"]);

/** One context object's terms, or null when it sets anything beyond plain term definitions (`@vocab`, `@base`, `@language` ...). */
function entryOf(context: unknown, allowed: ReadonlySet<string>): ContextEntry | null {
  if (context === null || typeof context !== "object" || Array.isArray(context)) return null;
  const terms = new Map<string, RawDefinition | typeof UNSUPPORTED>();
  let isProtected = false;
  for (const [term, definition] of Object.entries(context as Record<string, unknown>)) {
    if (term.startsWith("@")) {
      if (!allowed.has(term)) return null;
      if (term === "@protected") isProtected = definition === true;
      continue;
    }
    terms.set(term, plainDefinition(definition) ?? UNSUPPORTED);
  }
  return { terms, protected: isProtected };
}

function plainDefinition(definition: unknown): RawDefinition | null {
  if (typeof definition === "string") return definition;
  if (definition === null || typeof definition !== "object" || Array.isArray(definition)) return null;
  for (const [key, value] of Object.entries(definition)) {
    if (!DEFINITION_KEYS.has(key) || typeof value !== "string") return null;
  }
  return definition as RawDefinition;
}

/**
 * The contexts Fedify preloads, each read once. Only contexts made of plain
 * term definitions are kept; ActivityStreams alone may set `@vocab` (its
 * `_:`, which makes undefined terms blank-node properties that Fedify skips).
 */
const KNOWN_CONTEXTS: ReadonlyMap<string, ContextEntry> = (() => {
  const known = new Map<string, ContextEntry>();
  for (const [url, document] of Object.entries(preloadedContexts)) {
    const context = (document as { "@context"?: unknown })["@context"];
    const allowed = new Set(url === ACTIVITYSTREAMS_CONTEXT ? ["@vocab", "@protected", "@version"] : ["@protected", "@version"]);
    const entry = entryOf(context, allowed);
    if (entry !== null) known.set(url, entry);
  }
  return known;
})();

const NO_KEYWORDS: ReadonlySet<string> = new Set();

/**
 * The active context of a compact document whose `@context` the reader
 * understands: the ActivityStreams URL, or an array of the preloaded context
 * URLs (ActivityStreams among them) and inline objects of plain term
 * definitions. Terms are looked up lazily, newest definition first, and a
 * definition's prefix is resolved against the contexts up to its own, as a
 * JSON-LD processor does when it reads the array in order.
 */
export class CompactContext {
  readonly #entries: readonly ContextEntry[];
  readonly #meanings = new Map<string, TermMeaning | null>();

  private constructor(entries: readonly ContextEntry[]) {
    this.#entries = entries;
  }

  /**
   * The context of `value`, or null when any part of it is unknown or would
   * need a JSON-LD processor. Servers send the same few context arrays again
   * and again: the contexts read are kept by their JSON text, with the
   * meanings already looked up in them.
   */
  static of(value: unknown): CompactContext | null {
    if (value === ACTIVITYSTREAMS_CONTEXT) return SHARED_ACTIVITYSTREAMS;
    if (!Array.isArray(value) || value.length === 0) return null;
    const text = JSON.stringify(value);
    const known = RECENT_CONTEXTS.use(text);
    if (known !== undefined) return known;
    const context = CompactContext.#read(value);
    if (context !== null && text.length <= MAX_KEPT_CONTEXT_LENGTH) RECENT_CONTEXTS.set(text, context);
    return context;
  }

  static #read(value: readonly unknown[]): CompactContext | null {
    if (value.length > MAX_CONTEXT_ENTRIES) return null;
    const entries: ContextEntry[] = [];
    const inline = new Set<number>();
    let inlineTerms = 0;
    let hasActivityStreams = false;
    for (const item of value) {
      if (typeof item === "string") {
        const entry = KNOWN_CONTEXTS.get(item);
        if (entry === undefined) return null;
        if (item === ACTIVITYSTREAMS_CONTEXT) hasActivityStreams = true;
        entries.push(entry);
      } else {
        const entry = entryOf(item, NO_KEYWORDS);
        if (entry === null || ![...entry.terms.keys()].every(isPlainTerm)) return null;
        inlineTerms += entry.terms.size;
        if (inlineTerms > MAX_INLINE_TERMS) return null;
        inline.add(entries.length);
        entries.push(entry);
      }
    }
    if (!hasActivityStreams) return null;
    const context = new CompactContext(entries);
    return context.#definesEveryInlineTerm(inline) && !context.#redefinesProtectedTerm() ? context : null;
  }

  /**
   * Whether every plain definition of the inline contexts reads, used or not:
   * a JSON-LD processor refuses a whole context for one bad definition (an
   * unknown `@type` or `@container`, a prefix that does not resolve), and so
   * does Fedify's parse. Definitions of other shapes are refused where used.
   */
  #definesEveryInlineTerm(inline: ReadonlySet<number>): boolean {
    for (const index of inline) {
      const entry = this.#entries[index];
      if (entry === undefined) continue;
      for (const [term, definition] of entry.terms) {
        if (definition !== UNSUPPORTED && this.#interpret(term, definition, index) === null) return false;
      }
    }
    return true;
  }

  /**
   * The meaning of `term`; `undefined` for a term no context defines (it
   * expands to a blank-node property under ActivityStreams' `@vocab`), null
   * for one the reader cannot interpret.
   */
  meaning(term: string): TermMeaning | null | undefined {
    const cached = this.#meanings.get(term);
    if (cached !== undefined || this.#meanings.has(term)) return cached ?? null;
    const index = this.#definer(term, this.#entries.length - 1);
    // Only defined terms are kept: they are as many as the context has, where undefined keys are whatever a sender writes.
    if (index < 0) return undefined;
    const meaning = this.#interpret(term, this.#entries[index]?.terms.get(term), index);
    this.#meanings.set(term, meaning);
    return meaning;
  }

  /**
   * JSON-LD refuses to redefine a protected term other than identically; the
   * reader refuses a document that tries, or that redefines a term whose
   * definition it cannot read.
   */
  #redefinesProtectedTerm(): boolean {
    const entries = this.#entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry === undefined) continue;
      for (const [term, definition] of entry.terms) {
        // A definition the reader does not interpret may protect its term itself (`"@protected": true` inside it).
        if (!entry.protected && definition !== UNSUPPORTED) continue;
        for (let j = i + 1; j < entries.length; j++) {
          const later = entries[j]?.terms.get(term);
          if (later === undefined) continue;
          const before = this.#interpret(term, definition, i);
          const after = this.#interpret(term, later, j);
          if (before === null || after === null || JSON.stringify(before) !== JSON.stringify(after)) return true;
        }
      }
    }
    return false;
  }

  #definer(term: string, last: number): number {
    for (let i = last; i >= 0; i--) if (this.#entries[i]?.terms.has(term)) return i;
    return -1;
  }

  #interpret(term: string, definition: RawDefinition | typeof UNSUPPORTED | undefined, index: number): TermMeaning | null {
    if (definition === undefined || definition === UNSUPPORTED) return null;
    const id = typeof definition === "string" ? definition : definition["@id"];
    if (id === undefined) return null;
    if (id === "@id" || id === "@type") {
      // `id` and `type` are the only keyword aliases taken; any other (`uri` for `@id` ...) is refused.
      return typeof definition === "string" && term === id.slice(1) ? { iri: id, keyword: id } : null;
    }
    const iri = this.#expand(id, index);
    if (iri === null || typeof definition === "string") return iri === null ? null : { iri };
    let coercion: string | undefined;
    const type = definition["@type"];
    if (type !== undefined) {
      coercion = type === "@id" ? type : (this.#expand(type, index) ?? undefined);
      if (coercion === undefined) return null;
    }
    const container = definition["@container"];
    if (container !== undefined && container !== "@language" && container !== "@list") return null;
    return { iri, ...(coercion === undefined ? {} : { coercion }), ...(container === undefined ? {} : { container }) };
  }

  /**
   * An IRI value of an `@id`-coerced property: absolute http(s) IRIs as they
   * are, compact IRIs (Fedify writes `as:Public`) through their prefix.
   */
  valueIri(value: string): string | null {
    if (value.startsWith("https://") || value.startsWith("http://")) return value;
    if (value.includes("//")) return null;
    return this.#expand(value, this.#entries.length - 1);
  }

  /** An absolute http(s) IRI as it is, a compact IRI through its prefix; anything else is not understood. */
  #expand(value: string, index: number): string | null {
    if (value.startsWith("https://") || value.startsWith("http://")) return value;
    const colon = value.indexOf(":");
    if (colon <= 0) return null;
    const prefix = value.slice(0, colon);
    // `_:` is a blank node and `x://` an absolute IRI, whatever a context defines `_` or `x` as.
    if (prefix === "_" || value.startsWith("//", colon + 1)) return null;
    const definer = this.#definer(prefix, index);
    if (definer < 0) return null;
    const definition = this.#entries[definer]?.terms.get(prefix);
    const base = typeof definition === "string" ? definition : undefined;
    if (base === undefined || !(base.startsWith("https://") || base.startsWith("http://"))) return null;
    if (!base.endsWith("#") && !base.endsWith("/")) return null;
    return base + value.slice(colon + 1);
  }
}

/**
 * A term an inline context may define for the reader: not empty, not `_`
 * (the blank-node prefix), not a compact or relative IRI (`a:b`, `a/b`),
 * whose definitions JSON-LD checks against their own expansion.
 */
function isPlainTerm(term: string): boolean {
  return term !== "" && term !== "_" && !term.includes(":") && !term.includes("/");
}

/** The largest context the reader reads: servers send a few entries of some dozens of terms. */
const MAX_CONTEXT_ENTRIES = 16;
const MAX_INLINE_TERMS = 512;

/** How many context arrays are kept, and the longest JSON text of one that is. */
const RECENT_CONTEXTS = new BoundedMap<string, CompactContext>(32);
const MAX_KEPT_CONTEXT_LENGTH = 8192;

const SHARED_ACTIVITYSTREAMS = CompactContext.of([ACTIVITYSTREAMS_CONTEXT]) as CompactContext;
