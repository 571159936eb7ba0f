/**
 * A profile field as stored in `accounts.fields` (JSON): `value` is the HTML
 * shown to everyone, `source` the plain text its owner wrote (local accounts
 * only), `verified_at` when a rel="me" link back was confirmed.
 */
export interface ProfileField {
  readonly name: string;
  readonly value: string;
  readonly source?: string;
  readonly verified_at: string | null;
}

/** Reads the stored JSON leniently: a malformed entry is dropped rather than breaking the profile. */
export function parseProfileFields(json: string): ProfileField[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((item): ProfileField[] => {
    if (typeof item !== "object" || item === null) return [];
    const { name, value, source, verified_at } = item as Record<string, unknown>;
    if (typeof name !== "string" || typeof value !== "string") return [];
    return [
      {
        name,
        value,
        ...(typeof source === "string" ? { source } : {}),
        verified_at: typeof verified_at === "string" ? verified_at : null,
      },
    ];
  });
}
