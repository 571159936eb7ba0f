import type { IdKind, ModuleIdKind } from "../domain/ids.js";

/** Makes new prefixed, time-ordered identifiers (see `domain/ids.ts`). */
export interface IdGenerator {
  /** A new id of the given kind, greater than every id of that kind made before by this generator. */
  next(kind: IdKind | ModuleIdKind): string;
}
