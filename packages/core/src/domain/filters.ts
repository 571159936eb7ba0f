export type FilterContext = "home" | "notifications" | "public" | "thread" | "account";
export type FilterAction = "warn" | "hide" | "blur";

export interface FilterKeywordRecord {
  readonly id: string;
  readonly filterId: string;
  readonly keyword: string;
  readonly wholeWord: boolean;
}

export interface FilterStatusRecord {
  readonly id: string;
  readonly filterId: string;
  readonly statusId: string;
}

/** A filter as its owner set it up: where it applies, what it does, and the words and statuses it matches. */
export interface FilterRecord {
  readonly id: string;
  readonly accountId: string;
  readonly title: string;
  readonly context: readonly FilterContext[];
  readonly action: FilterAction;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly keywords: readonly FilterKeywordRecord[];
  readonly statuses: readonly FilterStatusRecord[];
}
