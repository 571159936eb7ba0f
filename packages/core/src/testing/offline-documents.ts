import { type DocumentLoader, preloadedContexts } from "@fedify/fedify";

/**
 * A document loader that serves the JSON-LD contexts Fedify ships with and
 * refuses every other URL, so a parse or signature check in a test or a
 * measurement never reaches the network (and fails loudly if it tries).
 */
export const preloadedContextLoader: DocumentLoader = async (url) => {
  const document = (preloadedContexts as Record<string, unknown>)[url];
  if (document === undefined) throw new Error(`refused: ${url}`);
  return { contextUrl: null, documentUrl: url, document };
};

/** The `@context` Mastodon 4 writes on its activities and Notes, for documents made to look like its own. */
export const MASTODON_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    ostatus: "http://ostatus.org#",
    atomUri: "ostatus:atomUri",
    inReplyToAtomUri: "ostatus:inReplyToAtomUri",
    conversation: "ostatus:conversation",
    sensitive: "as:sensitive",
    toot: "http://joinmastodon.org/ns#",
    votersCount: "toot:votersCount",
    blurhash: "toot:blurhash",
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
    Hashtag: "as:Hashtag",
    Emoji: "toot:Emoji",
  },
] as const;
