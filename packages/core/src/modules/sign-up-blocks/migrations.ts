import type { MigrationSpec } from "../../ports/migration-spec.js";

/** The blocks on sign-ups and sign-ins: canonical email addresses, email domains, IP ranges. */
export const signUpBlockMigrations: readonly MigrationSpec[] = [
  {
    name: "sign-up-blocks_0001_blocks",
    tables: [
      {
        name: "canonical_email_blocks",
        columns: {
          id: { type: "text" },
          /** SHA-256 (hex) of the canonical form of the address; the address itself is not kept. */
          canonical_email_hash: { type: "text" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [{ name: "canonical_email_blocks_hash_idx", columns: ["canonical_email_hash"], unique: true }],
      },
      {
        name: "email_domain_blocks",
        columns: {
          id: { type: "text" },
          /** Lower-case ASCII (punycode); its subdomains are blocked with it. */
          domain: { type: "text" },
          /** Sign-ups from the domain are let through, to wait for approval, rather than refused. */
          allow_with_approval: { type: "bool", default: false },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [{ name: "email_domain_blocks_domain_idx", columns: ["domain"], unique: true }],
      },
      {
        name: "email_domain_block_hits",
        columns: {
          block_id: { type: "text", references: "email_domain_blocks(id)", onDelete: "cascade" },
          /** The UTC day, `YYYY-MM-DD`. */
          day: { type: "text" },
          /** The network address the attempt came from ("" when unknown): distinct ones are Mastodon's `accounts` of a day. */
          source: { type: "text" },
          hits: { type: "int" },
        },
        primaryKey: ["block_id", "day", "source"],
        withoutRowid: true,
      },
      {
        name: "ip_blocks",
        columns: {
          id: { type: "text" },
          /** The range in CIDR form, host bits cleared: `192.0.2.0/24`, `2001:db8::/32`. */
          ip: { type: "text" },
          /** `sign_up_requires_approval`, `sign_up_block` or `no_access`. */
          severity: { type: "text" },
          comment: { type: "text" },
          expires_at: { type: "timestamp", nullable: true },
          created_at: { type: "timestamp" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [{ name: "ip_blocks_ip_idx", columns: ["ip"], unique: true }],
      },
    ],
  },
];
