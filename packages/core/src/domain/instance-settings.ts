import { z } from "zod";

/**
 * Settings administrators change at run time (the CLI's `settings`, the admin
 * API), stored in the database. Each has a schema and a default; an unknown
 * key or a bad value is refused.
 */
export const REGISTRATION_MODES = ["open", "approval", "closed"] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/** Who may read a list the server publishes: no one, signed-in users, or anyone (Mastodon's `show_domain_blocks`). */
export const PUBLICATION_LEVELS = ["disabled", "users", "all"] as const;
export type PublicationLevel = (typeof PUBLICATION_LEVELS)[number];

export const instanceSettingsSchema = z.object({
  /** Who may sign up: anyone, anyone after approval, or no one. Approval by default, as Mastodon and GoToSocial: a new server has no moderation in place yet. */
  registrationsMode: z.enum(REGISTRATION_MODES).default("approval"),
  /** "Maximum number of pinned statuses" per account. */
  maxPinnedPosts: z.number().int().min(0).max(100).default(5),
  /** Only addresses of allowlisted email domains may register. */
  emailAllowlistEnabled: z.boolean().default(false),
  /** Allowlist mode: only domains on the domain allowlist (and their subdomains) federate. */
  federationAllowlistEnabled: z.boolean().default(false),
  /** Shown in the instance document. */
  title: z.string().min(1).max(100).default("Kith"),
  description: z.string().max(5_000).default("A Kith server."),
  contactEmail: z.string().max(320).default(""),
  rules: z.array(z.object({ id: z.string(), text: z.string().min(1).max(1_000), hint: z.string().max(1_000).default("") })).default([]),
  /** The longer text of the about page (`GET /api/v1/instance/extended_description`), plain text in paragraphs. */
  extendedDescription: z.string().max(100_000).default(""),
  /** Who may read the server's domain blocks (`GET /api/v1/instance/domain_blocks`); off by default, as in Mastodon. */
  showDomainBlocks: z.enum(PUBLICATION_LEVELS).default("disabled"),
  /** Who may read the public comments of those blocks. */
  showDomainBlocksRationale: z.enum(PUBLICATION_LEVELS).default("disabled"),
});

export type InstanceSettings = z.infer<typeof instanceSettingsSchema>;
export type InstanceSettingKey = keyof InstanceSettings;

export const INSTANCE_SETTING_KEYS = Object.keys(instanceSettingsSchema.shape) as InstanceSettingKey[];

export const DEFAULT_INSTANCE_SETTINGS: InstanceSettings = instanceSettingsSchema.parse({});
