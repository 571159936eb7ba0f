import { parsePhoneNumberWithError } from "libphonenumber-js";
import { KithError, isKithError } from "../../domain/errors.js";

/**
 * A phone number as people type it, validated and normalised to E.164.
 * Numbers must be international (`+` and a country code): the server has
 * no country of its own to assume.
 */
export function normalizePhoneNumber(input: string): string {
  const trimmed = input.trim();
  if (trimmed === "" || trimmed.length > 40) throw new KithError("phone.invalid");
  try {
    const parsed = parsePhoneNumberWithError(trimmed);
    if (!parsed.isValid()) throw new KithError("phone.invalid");
    return parsed.number;
  } catch (error) {
    if (isKithError(error)) throw error;
    throw new KithError("phone.invalid", { cause: error });
  }
}
