import type { Context } from "@fedify/fedify";
import { Activity } from "@fedify/fedify/vocab";
import { readCompactActivity } from "./compact-activity.js";

/** What reading an activity needs of a context: its loaders. */
export type ActivityReaderContext = Pick<Context<unknown>, "documentLoader" | "contextLoader"> &
  Partial<Pick<Context<unknown>, "tracerProvider">>;

/**
 * Reads a received activity (its JSON, signature already checked) into
 * Fedify's vocabulary, with the context's loaders, as Fedify's inbox does
 * after verifying a request: the common shapes straight from their compact
 * JSON (compact-activity.ts, a tenth of the cost), the rest with Fedify's
 * JSON-LD parse. Throws what the vocabulary throws for a document that is
 * not an activity. `owned`: the caller parsed `json` for this read and
 * leaves it as it is, so the activity may keep it without a copy.
 */
export async function readActivity(json: unknown, ctx: ActivityReaderContext, owned = false): Promise<Activity> {
  const loaders = { documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader, tracerProvider: ctx.tracerProvider };
  return readCompactActivity(json, loaders, owned) ?? Activity.fromJsonLd(json, loaders);
}
