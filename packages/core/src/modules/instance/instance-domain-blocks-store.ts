import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";

/** A block the server publishes: what Mastodon shows of a domain block to the public. */
export interface PublishedDomainBlockRow {
  readonly domain: string;
  readonly severity: "SUSPEND" | "LIMIT";
  readonly publicComment: string | null;
  readonly obfuscate: boolean;
}

/**
 * The blocks that limit or suspend a domain, most severe first, then by domain: a block that only keeps media or
 * reports out changes nothing a reader sees of the domain, and Mastodon leaves it out too.
 */
export async function publishedDomainBlocks(db: Kysely<Database>): Promise<PublishedDomainBlockRow[]> {
  const rows = await db
    .selectFrom("domain_blocks")
    .select(["domain", "severity", "public_comment", "obfuscate"])
    .where("severity", "in", ["SUSPEND", "LIMIT"])
    .orderBy("severity", "desc")
    .orderBy("domain", "asc")
    .execute();
  return rows.map((row) => ({
    domain: row.domain,
    severity: row.severity === "SUSPEND" ? "SUSPEND" : "LIMIT",
    publicComment: row.public_comment,
    obfuscate: readFlag(row.obfuscate),
  }));
}
