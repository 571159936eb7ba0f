import type { Context } from "@fedify/fedify";
import { Activity } from "@fedify/fedify/vocab";

/** What reading an activity needs of a context: its loaders. */
export type ActivityReaderContext = Pick<Context<unknown>, "documentLoader" | "contextLoader" | "tracerProvider">;

/**
 * Reads a received activity (its JSON, signature already checked) into
 * Fedify's vocabulary, with the context's loaders, as Fedify's inbox does
 * after verifying a request. Throws what the vocabulary throws for a
 * document that is not an activity.
 */
export async function readActivity(json: unknown, ctx: ActivityReaderContext): Promise<Activity> {
  return Activity.fromJsonLd(json, {
    documentLoader: ctx.documentLoader,
    contextLoader: ctx.contextLoader,
    tracerProvider: ctx.tracerProvider,
  });
}
