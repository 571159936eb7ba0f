import { LanguageString } from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";
import { BoundedMap } from "../../bounded-map.js";
import { parseInstant } from "./instant.js";

/**
 * Single values of a compact document, turned into what Fedify's parse
 * makes of their expanded form. Each returns null for a value it cannot be
 * sure about; the reader then refuses the document.
 */

/** An absolute http(s) IRI; relative IRIs, compact IRIs and blank nodes are refused. */
export function iriOf(value: unknown): URL | null {
  if (typeof value !== "string") return null;
  if (!value.startsWith("https://") && !value.startsWith("http://")) return null;
  return URL.canParse(value) ? new URL(value) : null;
}

/**
 * An `xsd:dateTime`, read as Fedify reads it (a missing offset is taken as
 * UTC); null when Fedify's parse would throw. The common form is read
 * without the polyfill, whose parse was the reader's costliest step and
 * whose instants Fedify's constructors then check through a slow
 * `epochNanoseconds`; any other form goes to the polyfill, which reads or
 * refuses it as Fedify's own parse does.
 */
export function instantOf(value: unknown): Temporal.Instant | null {
  if (typeof value !== "string") return null;
  const text = /[Z+-]/.test(value.substring(19)) ? value : `${value}Z`;
  const instant = parseInstant(text);
  if (instant !== null) return instant;
  try {
    return Temporal.Instant.from(text);
  } catch {
    return null;
  }
}

/** An `xsd:nonNegativeInteger` as the vocabulary's constructors accept it. */
export function countOf(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}

/** The values of a language map (`contentMap` ...), in the order JSON-LD expansion gives them (sorted by key). */
export function languageStringsOf(value: unknown): LanguageString[] | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const map = value as Record<string, unknown>;
  const strings: LanguageString[] = [];
  for (const language of Object.keys(map).sort()) {
    const text = map[language];
    if (text === null) continue;
    if (typeof text !== "string" || !isLanguageTag(language)) return null;
    // JSON-LD expansion lowercases the tag.
    strings.push(new LanguageString(text, language.toLowerCase()));
  }
  return strings;
}

/** The verdicts on the language tags seen lately: checking one builds an `Intl.Locale` (about 5 µs). */
const LANGUAGE_TAGS = new BoundedMap<string, boolean>(256);

/** Tags JSON-LD keeps as they are and Fedify accepts; anything unusual (`@none`, odd case, private use) is refused. */
function isLanguageTag(tag: string): boolean {
  const known = LANGUAGE_TAGS.get(tag);
  if (known !== undefined) return known;
  let valid = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(tag);
  if (valid) {
    try {
      new Intl.Locale(tag);
    } catch {
      valid = false;
    }
  }
  LANGUAGE_TAGS.set(tag, valid);
  return valid;
}
