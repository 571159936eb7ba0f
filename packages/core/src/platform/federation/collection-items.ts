import type { DocumentLoader } from "@fedify/fedify";
import type { Collection, CollectionPage } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";

const logger = getLogger(["federation", "collections"]);

/**
 * The first `wanted` item ids of a remote collection: its own items, else
 * those of its pages in order, reading at most `maxPages` pages (a server
 * paging one item at a time, or with empty pages, cannot keep us reading).
 * A page that fails ends the walk with what was read.
 */
export async function collectionItemIds(
  collection: Collection,
  bounds: { readonly wanted: number; readonly maxPages: number },
  documentLoader: DocumentLoader,
): Promise<URL[]> {
  const uris: URL[] = [...collection.itemIds];
  let page: CollectionPage | null = null;
  try {
    page = uris.length === 0 ? await collection.getFirst({ documentLoader }) : null;
    for (let pages = 0; page && uris.length < bounds.wanted && pages < bounds.maxPages; pages++) {
      uris.push(...page.itemIds);
      page = page.nextId ? await page.getNext({ documentLoader }) : null;
    }
  } catch (error) {
    logger.debug("Reading a collection stopped early: {error}", { error });
  }
  return uris.slice(0, bounds.wanted);
}
