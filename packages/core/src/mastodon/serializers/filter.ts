import type { FilterKeywordRecord, FilterRecord, FilterStatusRecord } from "../../domain/filters.js";
import type { FilterEntity, FilterKeywordEntity, FilterStatusEntity, V1FilterEntity } from "../entities/filter.js";

export function serializeFilterKeyword(keyword: FilterKeywordRecord): FilterKeywordEntity {
  return { id: keyword.id, keyword: keyword.keyword, whole_word: keyword.wholeWord };
}

export function serializeFilterStatus(status: FilterStatusRecord): FilterStatusEntity {
  return { id: status.id, status_id: status.statusId };
}

export function serializeFilter(filter: FilterRecord): FilterEntity {
  return {
    id: filter.id,
    title: filter.title,
    context: [...filter.context],
    expires_at: filter.expiresAt,
    filter_action: filter.action,
    keywords: filter.keywords.map(serializeFilterKeyword),
    statuses: filter.statuses.map(serializeFilterStatus),
  };
}

/** A keyword as the v1 API shows it: its filter's context, expiry and action, `hide` being v1's `irreversible`. */
export function serializeV1Filter(filter: FilterRecord, keyword: FilterKeywordRecord): V1FilterEntity {
  return {
    id: keyword.id,
    phrase: keyword.keyword,
    context: [...filter.context],
    whole_word: keyword.wholeWord,
    expires_at: filter.expiresAt,
    irreversible: filter.action === "hide",
  };
}
