/** A request for one page of an id-ordered list (ids are time-ordered strings). */
export interface PageRequest {
  readonly limit: number;
  /** Items with ids below this. */
  readonly maxId?: string;
  /** Items with ids above this, the oldest of them (returned newest first). */
  readonly minId?: string;
  /** Items with ids above this, the newest of them. */
  readonly sinceId?: string;
}
