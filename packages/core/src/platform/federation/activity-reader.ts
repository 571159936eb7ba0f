import type { Context } from "@fedify/fedify";
import { Activity } from "@fedify/fedify/vocab";
import { readCompactActivity } from "./compact-activity.js";

/** What reading an activity needs of a context: its loaders. */
export type ActivityReaderContext = Pick<Context<unknown>, "documentLoader" | "contextLoader"> &
  Partial<Pick<Context<unknown>, "tracerProvider">>;

export interface ActivityReadOptions {
  /** The caller parsed `json` for this read and leaves it as it is, so the activity may keep it without a copy. @default false */
  readonly owned?: boolean;
  /** Read the common shapes from their compact JSON (config `optimisations.compactActivities`). @default true */
  readonly compact?: boolean;
}

/**
 * Reads a received activity (its JSON, signature already checked) into
 * Fedify's vocabulary, with the context's loaders, as Fedify's inbox does
 * after verifying a request: the common shapes straight from their compact
 * JSON (compact-activity.ts, a tenth of the cost), the rest with Fedify's
 * JSON-LD parse. Throws what the vocabulary throws for a document that is
 * not an activity.
 */
export async function readActivity(json: unknown, ctx: ActivityReaderContext, options: ActivityReadOptions = {}): Promise<Activity> {
  const loaders = { documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader, tracerProvider: ctx.tracerProvider };
  const compact = (options.compact ?? true) ? readCompactActivity(json, loaders, options.owned ?? false) : null;
  return compact ?? Activity.fromJsonLd(json, loaders);
}
