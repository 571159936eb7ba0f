import type { FilterResultEntity } from "../../mastodon/entities/filter.js";
import { serializeFilter } from "../../mastodon/serializers/filter.js";
import type { FilterRecord } from "../../domain/filters.js";

/** What a matcher reads of a status: the fields of Mastodon's Status entity that filters look at. */
export interface FilterableStatus {
  readonly id: string;
  readonly content: string;
  readonly spoiler_text: string;
  readonly reblog?: FilterableStatus | null;
  readonly poll?: { readonly options: readonly { readonly title: string }[] } | null;
  readonly media_attachments?: readonly { readonly description?: string | null }[];
  /** Mastodon's FilterResult list; typed loosely so any rendering of Status fits. */
  readonly filtered?: readonly unknown[];
}

/** Applies a viewer's filters of one context to rendered statuses. */
export interface FilterMatcher {
  /** Drops statuses a `hide` filter matches and sets `filtered` on the others that `warn` or `blur` filters match. */
  apply<T extends FilterableStatus>(statuses: readonly T[]): T[];
  /** The filter results for one status (its boosted status included), without changing it. */
  match(status: FilterableStatus): FilterResultEntity[];
  /** Whether the viewer has any active filter in this context; when false, `apply` returns its input. */
  readonly empty: boolean;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * As Mastodon does: a whole-word keyword must not touch a word character on
 * the sides where it itself starts or ends with one ("cat" does not match
 * "concatenate"; "#cat" still matches after a space).
 */
function keywordPattern(keyword: string, wholeWord: boolean): RegExp {
  const escaped = escapeRegExp(keyword);
  if (!wholeWord) return new RegExp(escaped, "iu");
  const before = WORD_CHAR.test(keyword.charAt(0)) ? "(?<![\\p{L}\\p{N}_])" : "";
  const after = WORD_CHAR.test(keyword.charAt(keyword.length - 1)) ? "(?![\\p{L}\\p{N}_])" : "";
  return new RegExp(`${before}${escaped}${after}`, "iu");
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'", nbsp: " " };

/** The readable text of rendered HTML: tags become spaces (so paragraphs do not glue words together). */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, "\n")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, name: string) => {
      const lower = name.toLowerCase();
      if (lower.startsWith("#x")) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
      if (lower.startsWith("#") && lower !== "#39") return String.fromCodePoint(Number(lower.slice(1)));
      return ENTITIES[lower] ?? whole;
    });
}

function searchableText(status: FilterableStatus): string {
  return [
    status.spoiler_text,
    plainText(status.content),
    ...(status.poll?.options.map((option) => option.title) ?? []),
    ...(status.media_attachments?.map((media) => media.description ?? "") ?? []),
  ].join("\n");
}

interface CompiledFilter {
  readonly record: FilterRecord;
  readonly keywords: readonly { readonly keyword: string; readonly pattern: RegExp }[];
  readonly statusIds: ReadonlySet<string>;
}

function compile(filters: readonly FilterRecord[]): CompiledFilter[] {
  return filters.map((record) => ({
    record,
    keywords: record.keywords.map((k) => ({ keyword: k.keyword, pattern: keywordPattern(k.keyword, k.wholeWord) })),
    statusIds: new Set(record.statuses.map((s) => s.statusId)),
  }));
}

function resultsFor(filters: readonly CompiledFilter[], status: FilterableStatus): FilterResultEntity[] {
  // A boost is judged by what it boosts, as Mastodon does.
  const proper = status.reblog ?? status;
  let text: string | undefined;
  const results: FilterResultEntity[] = [];
  for (const filter of filters) {
    const statusMatches = [status.id, proper.id].filter((id, i, all) => filter.statusIds.has(id) && all.indexOf(id) === i);
    let keywordMatches: string[] = [];
    if (filter.keywords.length > 0) {
      text ??= searchableText(proper);
      const haystack = text;
      keywordMatches = filter.keywords.filter((k) => k.pattern.test(haystack)).map((k) => k.keyword);
    }
    if (statusMatches.length === 0 && keywordMatches.length === 0) continue;
    results.push({
      filter: serializeFilter(filter.record),
      keyword_matches: keywordMatches.length > 0 ? keywordMatches : null,
      status_matches: statusMatches.length > 0 ? statusMatches : null,
    });
  }
  return results;
}

/** A matcher over already loaded, active filters of one context. */
export function createFilterMatcher(filters: readonly FilterRecord[]): FilterMatcher {
  const compiled = compile(filters);
  const match = (status: FilterableStatus): FilterResultEntity[] => (compiled.length === 0 ? [] : resultsFor(compiled, status));
  return {
    empty: compiled.length === 0,
    match,
    apply<T extends FilterableStatus>(statuses: readonly T[]): T[] {
      if (compiled.length === 0) return [...statuses];
      const kept: T[] = [];
      for (const status of statuses) {
        const results = match(status);
        if (results.some((result) => result.filter.filter_action === "hide")) continue;
        if (results.length === 0) {
          kept.push(status);
          continue;
        }
        const reblog = status.reblog ? { ...status.reblog, filtered: results } : status.reblog;
        kept.push({ ...status, filtered: results, ...(status.reblog !== undefined && { reblog }) });
      }
      return kept;
    },
  };
}
