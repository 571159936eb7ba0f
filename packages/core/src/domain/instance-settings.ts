import { z } from "zod";

/**
 * Settings administrators change at run time (the CLI's `settings`, the admin
 * API), stored in the database. Each has a schema and a default; an unknown
 * key or a bad value is refused.
 */
export const REGISTRATION_MODES = ["open", "approval", "closed"] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

export const instanceSettingsSchema = z.object({
  /** Who may sign up: anyone, anyone after approval, or no one. */
  registrationsMode: z.enum(REGISTRATION_MODES).default("open"),
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
});

export type InstanceSettings = z.infer<typeof instanceSettingsSchema>;
export type InstanceSettingKey = keyof InstanceSettings;

export const INSTANCE_SETTING_KEYS = Object.keys(instanceSettingsSchema.shape) as InstanceSettingKey[];

export const DEFAULT_INSTANCE_SETTINGS: InstanceSettings = instanceSettingsSchema.parse({});
